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


_DRAFTS: dict[Path, tuple[KnowledgeBase, KnowledgeBase]] = {}


def agent_knowledge(path: Path, use_drafts: bool = False) -> KnowledgeBase:
    """The knowledge base in ``path`` as the agent reads it: with ``use_drafts`` pending records count as approved.

    The drafts view (:meth:`KnowledgeBase.with_drafts`) is cached per loaded file, so callers that cache on the
    base's identity (the matcher) keep working. Raises :class:`KnowledgeFileError` like :func:`load_knowledge`.
    """
    kb = load_knowledge(path)
    if not use_drafts:
        return kb
    with _LOCK:
        cached = _DRAFTS.get(Path(path))
        if cached is None or cached[0] is not kb:
            cached = (kb, kb.with_drafts())
            _DRAFTS[Path(path)] = cached
        return cached[1]


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


_WRITE_LOCK = threading.Lock()


def propose_synonym(path: Path, term: str, table: str, column: str, *, user: str = "") -> str:
    """Add (or extend) a pending synonym record saying ``term`` means ``table.column``; returns its id.

    The record's id is ``syn.<table>.<column>`` (lower-cased, a slug); an existing record of that id gains the
    term as one more synonym and keeps its status unless it was rejected (then it is pending again), so a
    reviewer's approval is never undone silently and nothing stored is lost (atomic save). The record is
    ``provenance: human`` (an analyst chose the column) and reaches prompts only once approved.

    Raises:
        KnowledgeFileError: the file exists but cannot be read.
        ValueError: an empty term, or a table/column name that makes no valid id.
    """
    from knowledge.records import KnowledgeRecord

    term = " ".join(term.split())
    if not term:
        raise ValueError("the term is empty")
    slug = "".join(ch if ch.isalnum() or ch in "_.-" else "_" for ch in f"syn.{table}.{column}".lower())[:80]
    with _WRITE_LOCK:
        kb = load_knowledge(path)
        old = kb.get(slug)
        who = f" (chosen by {user})" if user else ""
        if old is not None:
            status = "pending" if old.status == "rejected" else old.status
            record = old.model_copy(update={"synonyms": list(dict.fromkeys([*old.synonyms, term])), "status": status})
        else:
            record = KnowledgeRecord(id=slug, type="synonym", name=f"{table}.{column}", synonyms=[term],
                                     definition=f"'{term}' in a question means the column {table}.{column}.",
                                     tables=[table], columns=[f"{table}.{column}"], provenance="human",
                                     status="pending", note=f"An analyst picked this column for '{term}'{who}.")
        save_knowledge(path, kb.upsert(record))
    return slug
