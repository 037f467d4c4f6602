"""Value-resolution accuracy of referential search on the demo gold questions (no LLM: filter off).

For every gold question of ``data/markets/gold.jsonl``, :func:`retrieval.values.search_values` runs without the
filter model (ambiguous mentions keep their top-ranked option). Each gold entity whose ``(table, column)`` is
indexed counts for recall; it is found when

* strict: some returned match has the expected ``(table, column, value)`` as its location or as one of its
  ``also`` locations (the same exact value in another column), or points at the same row (same table and id);
* lenient: additionally, the expected value equals a match's row id or sibling value (e.g. "Swiss francs"
  resolved to ``currencies.currency_name = 'Swiss Franc'`` whose key is ``'CHF'``, expected in
  ``FX_RT_D.QUOTE_CCY``).

Precision is over all returned matches: a match is correct when it (strictly / leniently) hits some gold entity
of its question. The index is built into a temporary Chroma folder with the offline MiniLM embeddings. To count
how often the filter model would be consulted, a scripted stand-in (no server) that always picks option 1 - the
same choice as no filter - is passed as the ``filter`` role.

Usage::

    python scripts/measure_values.py [--database URL] [--gold FILE] [--no-embeddings] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.llm import LLMProvider, UsageLog  # noqa: E402
from core.settings import DATA_DIR, Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.store import VALUES_INDEX, ChromaStore  # noqa: E402
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


def measure(db: Database, store: ChromaStore, gold: list[dict[str, Any]], use_embeddings: bool) -> dict[str, Any]:
    """Run every gold question; returns totals, precision/recall (strict and lenient) and per-question misses."""
    records = store.get(VALUES_INDEX, where={"db": db.key})
    indexed = {(str(h.metadata["table"]), str(h.metadata["column"])) for h in records}
    row_of = {(str(h.metadata["table"]), str(h.metadata["column"]), str(h.metadata["value"])): h.metadata["id"]
              for h in records if h.metadata.get("id") not in (None, "")}
    expected = found_s = found_l = returned = correct_s = correct_l = 0
    misses, seconds = [], []
    stand_in = ScriptedChatModel(replies=[{"choices": [1] * 8}])  # = top option, as without a filter
    llms, usage = LLMProvider(Settings(), overrides={"filter": stand_in}), UsageLog()
    filtered_questions = 0
    for item in gold:
        entities = [e for e in item.get("entities", []) if (e["table"], e["column"]) in indexed]
        started = time.perf_counter()
        calls_before = len(usage.calls)
        matches = search_values(item["question"], db.key, store, use_embeddings=use_embeddings,
                                llms=llms, usage=usage)
        seconds.append(time.perf_counter() - started)
        filtered_questions += len(usage.calls) > calls_before
        verdicts = [[_hits(e, m, row_of) for m in matches] for e in entities]
        expected += len(entities)
        found_s += sum(any(v[0] for v in row) for row in verdicts)
        found_l += sum(any(v[1] for v in row) for row in verdicts)
        returned += len(matches)
        correct_s += sum(any(verdicts[i][k][0] for i in range(len(entities))) for k in range(len(matches)))
        correct_l += sum(any(verdicts[i][k][1] for i in range(len(entities))) for k in range(len(matches)))
        missed = [e["mention"] for e, row in zip(entities, verdicts, strict=True) if not any(v[0] for v in row)]
        extra = [m.describe() for k, m in enumerate(matches)
                 if not any(verdicts[i][k][1] for i in range(len(entities)))]
        if missed or extra:
            misses.append({"id": item["id"], "question": item["question"], "missed": missed, "extra": extra,
                           "returned": [m.describe() for m in matches]})
    ordered = sorted(seconds)
    return {
        "questions": len(gold), "entities_indexed": expected, "matches_returned": returned,
        "recall_strict": found_s / max(expected, 1), "recall_lenient": found_l / max(expected, 1),
        "precision_strict": correct_s / max(returned, 1), "precision_lenient": correct_l / max(returned, 1),
        "latency_median_s": ordered[len(ordered) // 2], "latency_max_s": ordered[-1],
        "questions_needing_filter": filtered_questions, "misses": misses,
    }


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; prints the report (and writes JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", help="SQLAlchemy URL (default: the demo database)")
    parser.add_argument("--gold", type=Path, default=DATA_DIR / "markets" / "gold.jsonl")
    parser.add_argument("--no-embeddings", action="store_true", help="fuzzy matching only")
    parser.add_argument("--json", type=Path, help="write the full report here")
    args = parser.parse_args(argv)
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
    for miss in report["misses"]:
        print(f"- {miss['id']} {miss['question']}")
        if miss["missed"]:
            print(f"    missed: {', '.join(miss['missed'])}")
        for line in miss["extra"]:
            print(f"    extra:  {line}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
