"""Reading and writing the knowledge file: a human-readable YAML beside the examples file.

For a SQLite database the file is ``<stem>.knowledge.yaml`` next to it (``markets.knowledge.yaml``); for other
engines ``Settings.knowledge_path`` names it. The format is :class:`knowledge.records.KnowledgeBase` as YAML::

    version: 1
    database: markets
    records:
      - id: market_cap_usd
        type: metric
        name: market cap
        synonyms: [market capitalisation, mcap]
        definition: Shares outstanding x closing price, converted to US dollars.
        sql: EQ_MSTR.SHR_OUT * EQ_PX_D.PX_LST / FX_RT_D.FX_RT
        status: approved

Writes are atomic (temp file + rename), so a failed save never loses the stored file; loaded files are cached
by (path, modification time).
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from knowledge.records import KnowledgeBase


class KnowledgeFileError(ValueError):
    """The knowledge file cannot be read or is invalid; the message names the file and the problem."""


_CACHE: dict[Path, tuple[float, KnowledgeBase]] = {}
_LOCK = threading.Lock()


def load_knowledge(path: Path) -> KnowledgeBase:
    """The knowledge base in ``path``; an empty one when the file does not exist.

    Raises:
        KnowledgeFileError: unreadable YAML or a record that fails validation (message says which).
    """
    path = Path(path)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return KnowledgeBase()
    with _LOCK:
        cached = _CACHE.get(path)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise KnowledgeFileError(f"{path}: cannot read the knowledge file: {exc}") from exc
    kb = parse_knowledge(raw, str(path))
    with _LOCK:
        _CACHE[path] = (mtime, kb)
    return kb


def parse_knowledge(raw: Any, where: str = "knowledge") -> KnowledgeBase:
    """Validate a parsed YAML document as a :class:`KnowledgeBase`.

    Raises:
        KnowledgeFileError: naming ``where`` and the first invalid field (``records.3.sql: ...``).
    """
    if not isinstance(raw, dict):
        raise KnowledgeFileError(f"{where}: expected a mapping with 'version' and 'records'")
    try:
        return KnowledgeBase.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise KnowledgeFileError(f"{where}: {field}: {first['msg']}") from exc


def dump_knowledge(kb: KnowledgeBase) -> str:
    """YAML text of ``kb``: default and empty fields left out, keys in declaration order."""
    data = kb.model_dump(exclude_defaults=True)
    data = {"version": kb.version, **data}
    data["records"] = [
        {k: v for k, v in r.model_dump(exclude_defaults=True).items() if v not in ([], {}, None)}
        | {"status": r.status, "provenance": r.provenance}
        for r in kb.records
    ]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def save_knowledge(path: Path, kb: KnowledgeBase) -> None:
    """Write ``kb`` to ``path`` atomically (the old file stays intact if anything fails)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(dump_knowledge(kb))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
