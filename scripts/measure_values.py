"""Value-resolution accuracy of referential search on labelled questions (no LLM: filter off).

Two modes:

* demo (default): the gold questions of ``data/markets/gold.jsonl`` on the demo database (or ``--database``);
* ``--labelled FILE`` (e.g. ``benchmarks/sets/value_linking/labelled.jsonl``): questions over several databases, each line
  ``{"id", "database": "chinook" | "spider:<db_id>", "question", "entities": [{"table", "column", "value"}],
  "source"}``; ``entities`` is ``[]`` when the question names no value. Each database is indexed once.

For every question, :func:`retrieval.values.search_values` runs without the filter model (ambiguous mentions
keep their top-ranked option). Each gold entity whose ``(table, column)`` is indexed counts for recall; it is
found when

* strict: some returned match has the expected ``(table, column, value)`` as its location or as one of its
  ``also`` locations (the same exact value in another column), or points at the same row (same table and id);
* lenient: additionally, the expected value equals a match's row id or sibling value (e.g. "Swiss francs"
  resolved to ``currencies.currency_name = 'Swiss Franc'`` whose key is ``'CHF'``, expected in
  ``FX_RT_D.QUOTE_CCY``).

Precision is over all returned matches: a match is correct when it (strictly / leniently) hits some gold entity
of its question; every other match is a false match. On the questions labelled with no entity, the
false-positive rate is the share of them that got any match. Figures are given overall and per ``source``.
The index is built into a temporary Chroma folder with the offline MiniLM embeddings. To count how often the
filter model would be consulted, a scripted stand-in (no server) that always picks option 1 - the same choice
as no filter - is passed as the ``filter`` role.

Usage::

    python scripts/measure_values.py [--database URL] [--gold FILE] [--no-embeddings] [--json OUT]
    python scripts/measure_values.py --labelled benchmarks/sets/value_linking/labelled.jsonl [--no-embeddings] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import retrieval.values  # noqa: E402
from core.llm import LLMProvider, UsageLog  # noqa: E402
from core.settings import DATA_DIR, Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.store import VALUES_INDEX, ChromaStore  # noqa: E402
from retrieval.value_plausibility import schema_words  # noqa: E402
from retrieval.values import ValueMatch, index_values, search_values  # noqa: E402
from tests.support.scripted_model import ScriptedChatModel  # noqa: E402


def _hits(entity: dict[str, Any], match: ValueMatch, row_of: dict[tuple[str, str, str], Any]) -> tuple[bool, bool]:
    """(strict, lenient) verdict of ``match`` for one gold ``entity``."""
    table, column, value = entity["table"], entity["column"], str(entity["value"])
    places = {f"{match.table}.{match.column}", *match.also}
    strict = match.value == value and f"{table}.{column}" in places
    row = row_of.get((table, column, value))
    strict = strict or (row is not None and match.table == table and match.id == row)
    lenient = strict or value == str(match.id) or value in match.siblings.values()
    return strict, lenient


def _name(entity: dict[str, Any]) -> str:
    """How a missed entity is reported: its mention when the gold gives one, else ``table.column = 'value'``."""
    return entity.get("mention") or f"{entity['table']}.{entity['column']} = '{entity['value']}'"


def run_questions(db: Database, store: ChromaStore, items: list[dict[str, Any]],
                  use_embeddings: bool) -> list[dict[str, Any]]:
    """Search every question of ``items`` (all on ``db``); one verdict record per question."""
    records = store.get(VALUES_INDEX, where={"db": db.key})
    indexed = {(str(h.metadata["table"]), str(h.metadata["column"])) for h in records}
    row_of = {(str(h.metadata["table"]), str(h.metadata["column"]), str(h.metadata["value"])): h.metadata["id"]
              for h in records if h.metadata.get("id") not in (None, "")}
    tables = read_schema(db, sample_rows=0, use_enriched=False)
    schema = schema_words([*(t.name for t in tables), *(c.name for t in tables for c in t.columns)])
    stand_in = ScriptedChatModel(replies=[{"choices": [1] * 8}])  # = top option, as without a filter
    llms, usage = LLMProvider(Settings(), overrides={"filter": stand_in}), UsageLog()
    rows = []
    for item in items:
        labelled = item.get("entities", [])
        entities = [e for e in labelled if (e["table"], e["column"]) in indexed]
        started = time.perf_counter()
        calls_before = len(usage.calls)
        matches = search_values(item["question"], db.key, store, use_embeddings=use_embeddings,
                                llms=llms, usage=usage, schema=schema)
        seconds = time.perf_counter() - started
        verdicts = [[_hits(e, m, row_of) for m in matches] for e in entities]
        strict_ok = [any(verdicts[i][k][0] for i in range(len(entities))) for k in range(len(matches))]
        lenient_ok = [any(verdicts[i][k][1] for i in range(len(entities))) for k in range(len(matches))]
        rows.append({
            "id": item["id"], "source": item.get("source", "gold"), "database": item.get("database", db.key),
            "question": item["question"], "entities_labelled": len(labelled), "entities_indexed": len(entities),
            "found_strict": sum(any(v[0] for v in row) for row in verdicts),
            "found_lenient": sum(any(v[1] for v in row) for row in verdicts),
            "returned": len(matches), "correct_strict": sum(strict_ok), "correct_lenient": sum(lenient_ok),
            "seconds": seconds, "filtered": len(usage.calls) > calls_before,
            "unindexed": [_name(e) for e in labelled if (e["table"], e["column"]) not in indexed],
            "missed": [_name(e) for e, row in zip(entities, verdicts, strict=True) if not any(v[0] for v in row)],
            "extra": [m.describe() for m, ok in zip(matches, lenient_ok, strict=True) if not ok],
            "matches": [m.describe() for m in matches],
        })
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals, recall / precision (strict and lenient) and the false-positive figures of ``rows``."""
    def total(key: str, of: list[dict[str, Any]] = rows) -> int:
        return sum(int(r[key]) for r in of)
    expected, returned = total("entities_indexed"), total("returned")
    empty = [r for r in rows if r["entities_labelled"] == 0]
    seconds = sorted(r["seconds"] for r in rows) or [0.0]
    return {
        "questions": len(rows), "entities_labelled": total("entities_labelled"), "entities_indexed": expected,
        "matches_returned": returned,
        "recall_strict": total("found_strict") / max(expected, 1),
        "recall_lenient": total("found_lenient") / max(expected, 1),
        "precision_strict": total("correct_strict") / max(returned, 1),
        "precision_lenient": total("correct_lenient") / max(returned, 1),
        "false_matches_strict": returned - total("correct_strict"),
        "questions_without_entities": len(empty),
        "questions_without_entities_matched": sum(r["returned"] > 0 for r in empty),
        "false_positive_rate": sum(r["returned"] > 0 for r in empty) / max(len(empty), 1),
        "false_matches_on_questions_without_entities": total("returned", empty),
        "latency_median_s": seconds[len(seconds) // 2], "latency_max_s": seconds[-1],
        "questions_needing_filter": sum(bool(r["filtered"]) for r in rows),
    }


def _misses(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"id": r["id"], "question": r["question"], "missed": r["missed"], "extra": r["extra"],
             "returned": r["matches"]} for r in rows if r["missed"] or r["extra"]]


def measure(db: Database, store: ChromaStore, gold: list[dict[str, Any]], use_embeddings: bool) -> dict[str, Any]:
    """Run every gold question; returns totals, precision/recall (strict and lenient) and per-question misses."""
    rows = run_questions(db, store, gold, use_embeddings)
    return {**summarise(rows), "misses": _misses(rows)}


def database_url(name: str) -> str:
    """SQLAlchemy URL of a labelled item's ``database``: ``chinook`` or ``spider:<db_id>`` (Spider dev)."""
    if name == "chinook":
        return f"sqlite:///{DATA_DIR / 'chinook' / 'Chinook_Sqlite.sqlite'}"
    if name.startswith("spider:"):
        db_id = name.removeprefix("spider:")
        return f"sqlite:///{DATA_DIR / 'spider-dev' / 'database' / db_id / f'{db_id}.sqlite'}"
    raise ValueError(f"unknown database {name!r} (expected 'chinook' or 'spider:<db_id>')")


def _code_state() -> dict[str, Any]:
    """Which search code was measured: its folder, the commit and whether ``retrieval/`` differs from it."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""
    return {"code_root": str(Path(retrieval.values.__file__).resolve().parent.parent), "commit": git("rev-parse", "HEAD"),
            "retrieval_changed": bool(git("status", "--porcelain", "--", "retrieval"))}


def measure_labelled(items: list[dict[str, Any]], use_embeddings: bool) -> dict[str, Any]:
    """Index each database of ``items`` into one temporary store and measure; overall and per-source figures."""
    settings = Settings()
    by_db: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_db[item["database"]].append(item)
    rows: list[dict[str, Any]] = []
    indexes: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="values-") as tmp:
        store = ChromaStore(Path(tmp), get_embedding_function(settings))
        for name in sorted(by_db):
            db = Database.from_settings(settings.with_database(database_url(name)))
            started = time.perf_counter()
            n = index_values(db, store, settings=settings)
            columns = sorted({f"{h.metadata['table']}.{h.metadata['column']}"
                              for h in store.get(VALUES_INDEX, where={"db": db.key})})
            indexes[name] = {"db_key": db.key, "values": n, "columns": columns,
                             "seconds": round(time.perf_counter() - started, 2)}
            rows += run_questions(db, store, by_db[name], use_embeddings)
    order = {item["id"]: k for k, item in enumerate(items)}
    rows.sort(key=lambda r: order[r["id"]])
    sources = sorted({r["source"] for r in rows})
    return {
        "labelled": True, **_code_state(), "use_embeddings": use_embeddings,
        "overall": summarise(rows),
        "by_source": {s: summarise([r for r in rows if r["source"] == s]) for s in sources},
        "indexes": indexes, "misses": _misses(rows), "questions": rows,
    }


def print_table(report: dict[str, Any]) -> None:
    """The labelled-mode figures, one line per group (overall, then each source)."""
    groups = {"overall": report["overall"], **report["by_source"]}
    print(f"{'group':12s} {'quest':>5s} {'ents':>9s} {'recall':>6s} {'match':>5s} {'prec':>5s} "
          f"{'no-ent q':>8s} {'FP rate':>7s} {'false':>5s} {'f@no-ent':>8s}")
    for name, s in groups.items():
        print(f"{name:12s} {s['questions']:5d} {s['entities_indexed']:4d}/{s['entities_labelled']:<4d} "
              f"{s['recall_strict']:6.3f} {s['matches_returned']:5d} {s['precision_strict']:5.3f} "
              f"{s['questions_without_entities']:8d} {s['false_positive_rate']:7.3f} "
              f"{s['false_matches_strict']:5d} {s['false_matches_on_questions_without_entities']:8d}")
    print("ents = labelled entities in indexed columns / all labelled; recall and prec(ision) strict; "
          "FP rate = share of no-entity questions with any match; false = matches hitting no labelled entity; "
          "f@no-ent = those on no-entity questions")


def _print_misses(report: dict[str, Any]) -> None:
    for miss in report["misses"]:
        print(f"- {miss['id']} {miss['question']}")
        if miss["missed"]:
            print(f"    missed: {', '.join(miss['missed'])}")
        for line in miss["extra"]:
            print(f"    extra:  {line}")


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; prints the report (and writes JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", help="SQLAlchemy URL (default: the demo database)")
    parser.add_argument("--gold", type=Path, default=DATA_DIR / "markets" / "gold.jsonl")
    parser.add_argument("--labelled", type=Path, help="multi-database labelled set (see the module docstring)")
    parser.add_argument("--no-embeddings", action="store_true", help="fuzzy matching only")
    parser.add_argument("--json", type=Path, help="write the full report here")
    args = parser.parse_args(argv)
    if args.labelled:
        items = [json.loads(line) for line in args.labelled.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        report = measure_labelled(items, use_embeddings=not args.no_embeddings)
        report["labelled_file"] = str(args.labelled)
        for name, info in report["indexes"].items():
            print(f"{name}: {info['values']} values from {len(info['columns'])} columns in {info['seconds']:.1f} s")
        print(f"code measured: {report['code_root']} (commit {report['commit'][:10]}, "
              f"retrieval/ {'modified' if report['retrieval_changed'] else 'clean'} in {ROOT})")
        _print_misses(report)
        print_table(report)
        overall = report["overall"]
        print(f"search latency median {overall['latency_median_s'] * 1000:.0f} ms, "
              f"max {overall['latency_max_s'] * 1000:.0f} ms (filter model off); questions with an ambiguous "
              f"mention (one filter call each): {overall['questions_needing_filter']}")
    else:
        settings = Settings().with_database(args.database)
        db = Database.from_settings(settings)
        gold = [json.loads(line) for line in args.gold.read_text(encoding="utf-8").splitlines() if line.strip()]
        with tempfile.TemporaryDirectory(prefix="values-") as tmp:
            store = ChromaStore(Path(tmp), get_embedding_function(settings))
            started = time.perf_counter()
            n = index_values(db, store, settings=settings)
            build_s = time.perf_counter() - started
            columns = sorted({f"{h.metadata['table']}.{h.metadata['column']}" for h in store.get(VALUES_INDEX)})
            report = {"db": db.key, "values_indexed": n, "columns_indexed": len(columns), "index_seconds": build_s,
                      **measure(db, store, gold, use_embeddings=not args.no_embeddings)}
        print(f"database {report['db']}: {n} values from {len(columns)} columns indexed in {build_s:.1f} s")
        print(f"questions {report['questions']}, gold entities in indexed columns {report['entities_indexed']}, "
              f"matches returned {report['matches_returned']}")
        for kind in ("strict", "lenient"):
            print(f"{kind:8s} recall {report['recall_' + kind]:.3f}  precision {report['precision_' + kind]:.3f}")
        print(f"search latency median {report['latency_median_s'] * 1000:.0f} ms, "
              f"max {report['latency_max_s'] * 1000:.0f} ms (filter model off)")
        print(f"questions with an ambiguous mention (one filter call each): {report['questions_needing_filter']}")
        _print_misses(report)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
