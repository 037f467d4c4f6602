"""Step ``draft_records``: enum records for code-like columns and synonym records for cryptic names, pending.

- **Enums.** Each code-like column (:func:`retrieval.onboarding.profile.is_code_like`) gets one record listing
  its codes, unless it references (declared or candidate join) a key column that is code-like too: then it is
  listed as a user of that key's record (``EQ_MSTR.LIMAR`` under ``exchanges.mic``). When the key's table has a
  label column (text, nearly one value per row, a name with "name", "label", "title" or "description") each code
  is given its label (``XNYS: New York Stock Exchange``); otherwise the code stands for itself until a reviewer
  writes its meaning.
- **Synonyms.** A table or column whose name reads as words (:func:`knowledge.abbreviations.expand_name`:
  ``CO_NM`` -> "company name", ``EQ_PX_D`` -> "equity price daily") gets a synonym record with that phrase,
  unless its human comment already says it.

Ids are ``onb.enum.<table>.<column>``, ``onb.syn.<table>`` and ``onb.syn.<table>.<column>``; provenance ``mined``,
status ``pending``. :func:`add_drafts` adds a record only when its id is new, so a rerun drafts nothing twice and
no record a person wrote or reviewed is ever replaced.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from database.connection import Database
from knowledge.abbreviations import expand_name, split_words
from knowledge.files import load_knowledge, save_knowledge
from knowledge.records import KnowledgeBase, KnowledgeRecord
from retrieval.onboarding.context import StepOutcome, StepRun
from retrieval.onboarding.joins import quoted

LABEL_WORDS = frozenset({"name", "label", "title", "description"})
_LOCK = threading.Lock()


def record_id(*parts: str) -> str:
    """A knowledge-record id from ``parts`` (``onb``, ``enum``, table, column): lower case, at most 80 chars."""
    return re.sub(r"[^a-z0-9_.-]+", "_", ".".join(parts).lower())[:80]


def add_drafts(path: Path, records: list[KnowledgeRecord], database: str) -> list[KnowledgeRecord]:
    """Add the ``records`` whose id the knowledge file at ``path`` lacks; returns those added.

    The file is read again right before the atomic write, so edits made meanwhile (in the developer panel) are
    kept. Raises :class:`knowledge.files.KnowledgeFileError` for an invalid file.
    """
    with _LOCK:
        kb = load_knowledge(path)
        added = [r for r in records if kb.get(r.id) is None]
        for record in added:
            kb = kb.upsert(record)
        if added:
            save_knowledge(path, kb if kb.database else kb.model_copy(update={"database": database}))
    return added


def label_column(table: dict[str, Any], key: str) -> str | None:
    """The label column of a summarised table for its key ``key`` (see the module docstring), or None."""
    rows = table["rows"]
    for name, col in table["columns"].items():
        words = set((expand_name(name) or " ".join(split_words(name))).split())
        if (name != key and col.get("kind") == "text" and not col.get("masked") and words & LABEL_WORDS
                and (col.get("distinct") or 0) >= 0.9 * rows):
            return name
    return None


def _labels(db: Database, table: str, key: str, label: str, codes: list[str]) -> dict[str, str]:
    sql = (f"SELECT {quoted(key, db.dialect)}, {quoted(label, db.dialect)} FROM {quoted(table, db.dialect)} "
           f"WHERE {quoted(key, db.dialect)} IS NOT NULL")
    res = db.run_query(sql, row_cap=len(codes) + 1)
    found = {str(k): " ".join(str(v).split())[:120] for k, v in res.rows if v is not None} if res.ok else {}
    return {code: found.get(code) or code for code in codes}


def _covered(kb: KnowledgeBase, columns: list[str], kind: str) -> bool:
    wanted = {c.lower() for c in columns}
    return any(r.type == kind and wanted & {c.lower() for c in r.columns} for r in kb.records)


def enum_drafts(db: Database, tables: dict[str, Any], joins: list[dict[str, Any]],
                kb: KnowledgeBase) -> list[KnowledgeRecord]:
    """The enum drafts of the profiled ``tables`` (see the module docstring); columns ``kb`` covers are skipped."""
    code = {f"{t}.{c}" for t, table in tables.items() for c, col in table["columns"].items() if col["code"]}
    owner_of = {j["child"]: j["parent"] for j in joins if j["child"] in code and j["parent"] in code}
    users: dict[str, list[str]] = {}
    for column in sorted(code):
        owner = owner_of.get(column, column)
        users.setdefault(owner, [])
        if owner != column:
            users[owner].append(column)
    out = []
    for owner, refs in sorted(users.items()):
        table, column = owner.split(".", 1)
        summary = tables[table]
        codes = [str(v) for v, _n in summary["columns"][column]["top"]]
        if _covered(kb, [owner, *refs], "enum"):
            continue
        label = label_column(summary, column) if column in summary["keys"] else None
        values = _labels(db, table, column, label, codes) if label else {c: c for c in codes}
        also = f"; also used by {', '.join(refs)}" if refs else ""
        source = f"meanings from {table}.{label}" if label else "meanings to be written by the reviewer"
        out.append(KnowledgeRecord(
            id=record_id("onb", "enum", table, column), type="enum",
            name=(expand_name(column) or " ".join(split_words(column)) or column)[:120],
            definition=f"Codes of {owner}{also} ({source})."[:800], columns=[owner, *refs],
            tables=sorted({c.split(".", 1)[0] for c in [owner, *refs]}), values=values, provenance="mined",
            status="pending", note=f"Drafted by onboarding from the profile: {len(codes)} distinct codes."))
    return out


def synonym_drafts(tables: dict[str, Any], kb: KnowledgeBase) -> list[KnowledgeRecord]:
    """Synonym drafts for the tables and columns whose names read as words (see the module docstring)."""
    phrases = {(p.lower(), tuple(sorted(c.lower() for c in r.columns)), tuple(sorted(t.lower() for t in r.tables)))
               for r in kb.records for p in r.phrases}
    out = []
    for table, summary in tables.items():
        targets = [(table, None, summary.get("comment") or "")]
        targets += [(table, c, col.get("comment") or "") for c, col in summary["columns"].items()]
        for tname, column, comment in targets:
            phrase = expand_name(column or tname)
            if not phrase or phrase.lower() in comment.lower():
                continue
            columns: list[str] = [f"{tname}.{column}"] if column else []
            if (phrase.lower(), tuple(c.lower() for c in columns), (tname.lower(),)) in phrases:
                continue
            what = f"the column {tname}.{column}" if column else f"the table {tname}"
            out.append(KnowledgeRecord(
                id=record_id("onb", "syn", tname, *([column] if column else [])), type="synonym",
                name=(f"{tname}.{column}" if column else tname)[:120], synonyms=[phrase],
                definition=f"'{phrase}' in a question means {what}."[:800], columns=columns, tables=[tname],
                provenance="mined", status="pending", note="Drafted by onboarding from the name's abbreviations."))
    return out


def run_draft_records(run: StepRun) -> StepOutcome:
    """Draft enum and synonym records from the profile and add the new ones to the knowledge file."""
    job, profile = run.job, run.results["profile"]
    kb = load_knowledge(job.knowledge_path)
    run.item(1, 2, "enum records")
    enums = enum_drafts(job.db, profile["tables"], profile["joins"], kb)
    run.item(2, 2, "synonym records")
    synonyms = synonym_drafts(profile["tables"], kb)
    added = add_drafts(job.knowledge_path, enums + synonyms, job.db.key)
    kinds = [r.type for r in added]
    note = f"{kinds.count('enum')} enum and {kinds.count('synonym')} synonym records drafted"
    return StepOutcome(items=len(added), result={"added": [r.id for r in added]}, note=note)
