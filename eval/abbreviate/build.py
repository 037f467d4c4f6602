"""The abbreviated Spider-format folder: databases copied, questions rewritten and checked."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.abbreviate.database import copy_database
from eval.abbreviate.renames import SchemaRename, plan_renames
from eval.abbreviate.rewrite import RewriteError, query_rows, rewrite_sql
from eval.abbreviate.schema import read_tables


@dataclass
class BuildReport:
    """What :func:`build_copy` did: questions kept and dropped (with reasons), renamings, foreign keys lost."""

    kept: int = 0
    dropped: list[dict[str, Any]] = field(default_factory=list)
    per_db: dict[str, dict[str, int]] = field(default_factory=dict)
    renames: dict[str, SchemaRename] = field(default_factory=dict)
    foreign_keys_dropped: dict[str, list[str]] = field(default_factory=dict)


def build_copy(source: Path, out: Path, db_ids: list[str], *, seed: int = 2026,
               indices: set[int] | None = None, column_share: float = 0.3,
               table_share: float = 0.2, foreign_keys: bool = True) -> BuildReport:
    """Write an abbreviated Spider-format copy of ``db_ids`` from the folder ``source`` into ``out``.

    ``out`` receives ``dev.json`` (``db_id`` renamed, ``question``, ``query`` rewritten, ``source_index``,
    ``source_db_id``, ``source_query``, and ``original_question`` when the source has it),
    ``database/<new db_id>/<new db_id>.sqlite`` and ``renames.json`` (the renamings, the questions dropped and
    why, the foreign keys left out). Folders of databases an earlier build listed in ``out/renames.json`` are
    removed first.

    Args:
        source: a Spider-format folder (``dev.json``, ``database/<db_id>/<db_id>.sqlite``).
        out: the folder to write.
        db_ids: the databases to copy.
        seed: random seed of the renaming.
        indices: keep only the questions at these positions of the source file (None: every question of
            ``db_ids``).
        column_share: see :func:`plan_renames`.
        table_share: see :func:`plan_renames`.
        foreign_keys: False declares no foreign key in the copies (a warehouse or CSV load declares none); the
            renaming still reads the source's keys, so the same ``seed`` gives the same names either way.

    Raises:
        FileNotFoundError: ``source`` lacks dev.json or the SQLite file of one of ``db_ids``.
    """
    questions = json.loads((source / "dev.json").read_text())
    databases = source / "database"
    if databases.is_file():  # a copied link holding the folder's relative path
        databases = source / databases.read_text().strip()
    files = {db: databases / db / f"{db}.sqlite" for db in db_ids}
    for db, path in files.items():
        if not path.exists():
            raise FileNotFoundError(f"{path}: no SQLite file for {db}")
    previous = out / "renames.json"
    if previous.exists():
        for entry in json.loads(previous.read_text()).get("databases", {}).values():
            shutil.rmtree(out / "database" / entry["db_id"], ignore_errors=True)
    report = BuildReport()
    for db in db_ids:
        conn = sqlite3.connect(f"{files[db].resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = read_tables(conn)
        finally:
            conn.close()
        rename = plan_renames(tables, db, seed, column_share=column_share, table_share=table_share)
        target = out / "database" / rename.new_db_id / f"{rename.new_db_id}.sqlite"
        report.renames[db] = rename
        report.foreign_keys_dropped[db] = copy_database(files[db], target, tables, rename,
                                                            foreign_keys=foreign_keys)
        report.per_db[db] = {"kept": 0, "dropped": 0}
    wanted = set(db_ids)
    rows = []
    for i, q in enumerate(questions):
        if q["db_id"] not in wanted or (indices is not None and i not in indices):
            continue
        rename = report.renames[q["db_id"]]
        target = out / "database" / rename.new_db_id / f"{rename.new_db_id}.sqlite"
        reason = ""
        try:
            rewritten = rewrite_sql(q["query"], rename)
            if query_rows(target, rewritten) != query_rows(files[q["db_id"]], q["query"]):
                reason = "different rows"
        except (RewriteError, sqlite3.Error) as exc:
            reason = f"{type(exc).__name__}: {exc}"
        if reason:
            report.dropped.append({"source_index": i, "db_id": q["db_id"], "query": q["query"], "reason": reason})
            report.per_db[q["db_id"]]["dropped"] += 1
            continue
        row = {"db_id": rename.new_db_id, "question": q["question"], "query": rewritten, "source_index": i,
               "source_db_id": q["db_id"], "source_query": q["query"]}
        if "original_question" in q:
            row["original_question"] = q["original_question"]
        rows.append(row)
        report.per_db[q["db_id"]]["kept"] += 1
    report.kept = len(rows)
    out.mkdir(parents=True, exist_ok=True)
    (out / "dev.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    previous.write_text(json.dumps({
        "source": str(source), "seed": seed, "column_share": column_share, "table_share": table_share,
        "foreign_keys": foreign_keys,
        "databases": {db: {**r.to_json(), "foreign_keys_dropped": report.foreign_keys_dropped[db],
                           **report.per_db[db]} for db, r in report.renames.items()},
        "questions": {"kept": report.kept, "dropped": report.dropped}}, indent=1, ensure_ascii=False))
    return report


def databases_from_dev(path: Path, count: int, seed: int) -> tuple[list[str], set[int]]:
    """``count`` databases of a development set file, and the source positions of their questions there.

    ``path`` is a JSONL file with ``qid`` (``spider-<position>``) and ``db_id`` (e.g.
    ``benchmarks/sets/wide-dev.jsonl``). The databases are a ``random.Random(seed)`` choice among its sorted
    ``db_id``s, returned sorted.

    Raises:
        ValueError: ``count`` exceeds the number of databases, or a qid is not ``spider-<n>``.
    """
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    all_dbs = sorted({r["db_id"] for r in rows})
    if count > len(all_dbs):
        raise ValueError(f"{path}: {count} databases asked, {len(all_dbs)} available")
    chosen = sorted(random.Random(seed).sample(all_dbs, count))
    indices = set()
    for r in rows:
        if r["db_id"] in chosen:
            number = str(r["qid"]).removeprefix("spider-")
            if not number.isdigit():
                raise ValueError(f"{path}: qid {r['qid']} is not spider-<n>")
            indices.add(int(number))
    return chosen, indices
