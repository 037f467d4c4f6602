"""Replay the cascade's model-free rescues on recorded candidates: which answer the cascade would now stop at.

    python scripts/replay_cascade.py --spider data/spider-dev RECORDS.jsonl
    python scripts/replay_cascade.py --sqlite data/markets/markets.sqlite RECORDS.jsonl
    python scripts/replay_cascade.py --sqlite data/markets/markets.sqlite \
        --knowledge data/markets/markets.knowledge.yaml RECORDS.jsonl

For each record, the recorded candidates are walked in order as the cascade runs them: the first with rows
ends it (a failing one first gets its missing joins, :mod:`database.missing_join`); an empty one is first offered to the rescues this commit has (respelled literals, unread joins
dropped, filters on unasked values dropped, dates read as of the last day on or before; value matches are not recorded, so only the question names a
value here). When a rescue returns rows the cascade would have stopped there, without the later model calls.
The final SQL's date filters then move after its look-back windows (:mod:`database.window_scope`);
date bounds copied from an example move onto the question's period (:mod:`tools.period_dates`);
with ``--knowledge`` rates of a row's own currency divide (:mod:`tools.rate_direction`) and filters on codes
the question never names are dropped (:mod:`tools.code_filters`) in every candidate and the approved answer conventions shape the final SQL
(:mod:`tools.answer_shape`). Prints strict EX before/after with the paired difference and every changed question. Needs no model; the
later candidates are the recorded ones, so this is exact for every question up to the first rescue.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from database.as_of import as_of_dates, latest_per_series  # noqa: E402
from database.connection import Database  # noqa: E402
from database.dangling import prune_dangling_joins  # noqa: E402
from database.joins import JoinGraph, join_graph  # noqa: E402
from database.missing_join import add_missing_joins  # noqa: E402
from database.window_scope import lift_window_filters  # noqa: E402
from eval.metrics import paired_bootstrap  # noqa: E402
from knowledge.files import load_knowledge  # noqa: E402
from knowledge.lookup import KnowledgeMatcher  # noqa: E402
from scripts.replay_pruning import Databases, load_records, score  # noqa: E402
from tools.answer_shape import apply_conventions, conventions_of  # noqa: E402
from tools.code_filters import code_bindings, fix_code_filters  # noqa: E402
from tools.literals import degenerate, drop_unasked_filters, fix_literals, named_in  # noqa: E402
from tools.period_dates import align_period_dates  # noqa: E402
from tools.rate_direction import fix_rate_direction, rate_specs  # noqa: E402


def primary_keys(db: Database) -> dict[str, list[str]]:
    """Lower-cased table -> primary-key columns, from SQLAlchemy's inspector."""
    from sqlalchemy import inspect

    inspector = inspect(db.engine)
    return {t.lower(): list(inspector.get_pk_constraint(t).get("constrained_columns") or [])
            for t in inspector.get_table_names()}


def graph_of(db: Database) -> JoinGraph:
    """The foreign-key join graph of ``db``, from SQLAlchemy's inspector."""
    from sqlalchemy import inspect

    inspector = inspect(db.engine)
    return join_graph({t: [(",".join(fk["constrained_columns"]),
                            f"{fk['referred_table']}.{','.join(fk['referred_columns'])}")
                           for fk in inspector.get_foreign_keys(t)] for t in inspector.get_table_names()})


def rescue(db: Database, columns: dict[str, set[str]], question: str, sql: str) -> tuple[str, str] | None:
    """(strategy, sql) of the first rescue of an empty ``sql`` that returns rows, else None."""
    fixes = [("literal", lambda: fix_literals(db, sql)),
             ("as_of", lambda: as_of_dates(sql, db.dialect, primary_keys(db))),
             ("relaxed", lambda: prune_dangling_joins(sql, db.dialect, columns, lambda _t: False)),
             ("unasked", lambda: drop_unasked_filters(sql, db.dialect, functools.partial(named_in, question)))]
    for name, make in fixes:
        fixed = make()
        if fixed and fixed != sql and (res := db.run_query(fixed, row_cap=10)).ok and not degenerate(res.rows):
            return name, fixed
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--spider", help="Spider folder (database/<db_id>/<db_id>.sqlite)")
    where.add_argument("--sqlite", help="one SQLite file for every record")
    parser.add_argument("--knowledge", help="knowledge file whose approved presentation records shape each final SQL")
    parser.add_argument("records", nargs="+", help="evaluation record files (JSONL)")
    args = parser.parse_args()
    kb = load_knowledge(Path(args.knowledge)) if args.knowledge else None
    conventions = conventions_of(kb.presentations()) if kb else []
    bindings = code_bindings(kb.approved()) if kb else []
    rates = rate_specs(kb.approved()) if kb else []
    matcher = KnowledgeMatcher([r for r in kb.approved() if r.type != "presentation"]) if kb else None
    rows = [r for r in load_records(args.records) if isinstance(r.get("candidates"), list)]
    dbs = Databases(args.sqlite, args.spider)
    before: list[int] = []
    after: list[int] = []
    changed: list[tuple[str, str, str | None, str]] = []
    outcome: dict[str, tuple[int, int, int, int]] = {}
    tolerant = [0, 0]
    for row in rows:
        db, columns = dbs.of(row)
        final = row.get("pred_sql")
        for cand in row["candidates"]:
            sql = cand.get("sql")
            if not sql or cand.get("strategy") in ("relaxed", "literal", "unasked", "as_of"):
                continue
            if aligned := align_period_dates(sql, db.dialect, str(row["question"])):
                changed.append((row["qid"], "period", sql, aligned))
                sql = aligned
            if rates and (turned := fix_rate_direction(sql, db.dialect, rates)):
                changed.append((row["qid"], "rates", sql, turned))
                sql = turned
            if matcher is not None and (coded := fix_code_filters(sql, db.dialect, str(row["question"]), bindings,
                                                                  matcher)):
                changed.append((row["qid"], "codes", sql, coded))
                sql = coded
            res = db.run_query(sql, row_cap=10)
            joined = None if res.ok else add_missing_joins(sql, db.dialect, graph_of(db))
            if joined and (again := db.run_query(joined, row_cap=10)).ok and again.rows:
                changed.append((row["qid"], "joined", final, joined))
                final = joined
                break
            if res.ok and res.rows:
                if sql != cand["sql"] and cand["sql"] == row.get("pred_sql"):
                    final = sql  # the recorded answer, as this commit's rewrites now write it
                break
            if res.ok and (found := rescue(db, columns, str(row["question"]), sql)) and found[1] != final:
                changed.append((row["qid"], found[0], final, found[1]))
                final = found[1]
                break
        if final and (latest := latest_per_series(final, db.dialect, str(row["question"]), primary_keys(db))):
            changed.append((row["qid"], "latest", final, latest))
            final = latest
        if final and (lifted := lift_window_filters(final, db.dialect)):
            changed.append((row["qid"], "window", final, lifted))
            final = lifted
        if final and conventions:
            shaped = apply_conventions(final, db.dialect, conventions, primary_keys(db))
            if shaped != final:
                changed.append((row["qid"], "conventions", final, shaped))
                final = shaped
        b, a = score(db, row["gold_sql"], row.get("pred_sql")), score(db, row["gold_sql"], final)
        before.append(b[0])
        after.append(a[0])
        tolerant[0] += b[1]
        tolerant[1] += a[1]
        outcome[row["qid"]] = (b[0], a[0], b[1], a[1])
    d = paired_bootstrap(after, before)
    n = len(rows)
    print(f"strict EX: before {sum(before)}/{n} after {sum(after)}/{n}; paired {d['diff']:+.1%} "
          f"[{d['low']:+.1%}, {d['high']:+.1%}]; tolerant EX: before {tolerant[0]}/{n} after {tolerant[1]}/{n}; "
          f"rewritten {len(changed)}")
    for qid, name, old, new in changed:
        b0, a0, b1, a1 = outcome[qid]
        print(f"  {qid} ({name}): {b0} -> {a0} (tolerant {b1} -> {a1})\n    {old}\n    {new}")


if __name__ == "__main__":
    main()
