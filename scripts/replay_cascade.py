"""Replay the SQL rewrite pipeline on recorded candidates: which answer the cascade would now stop at.

    python scripts/replay_cascade.py --spider data/spider-dev RECORDS.jsonl
    python scripts/replay_cascade.py --sqlite data/markets/markets.sqlite RECORDS.jsonl
    python scripts/replay_cascade.py --sqlite data/markets/markets.sqlite \
        --knowledge data/markets/markets.knowledge.yaml RECORDS.jsonl

For each record, the recorded candidates are walked in order as the cascade runs them, through the same runner
the agent uses (:func:`rewrites.pipeline.run_phase`): each candidate gets the ``candidate`` phase with its
question (qualifiers, missing joins, period bounds, dangling joins, latest per series, window filters; with
``--knowledge`` also rate direction, unnamed codes and answer conventions), the first whose query returns real
rows ends it, and an empty one (or one row of NULL/0) first gets the ``rescue`` phase (respelled literals, as-of
dates, unread joins, unasked filters; value matches are not recorded, so only the question names a value here).
The table catalog (columns, primary keys, foreign keys) is read from the database instead of an index. Prints
strict EX before/after with the paired difference and every changed question, with the steps that fired.
Needs no model; the later candidates are the recorded ones, so this is exact for every question up to the
first rescue. ``--agree 2`` replays the voting cascade the small profile ships instead (see :func:`replay`).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.settings import RewriteSettings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.joins import join_graph  # noqa: E402
from eval.metrics import paired_bootstrap  # noqa: E402
from knowledge.files import load_knowledge  # noqa: E402
from knowledge.lookup import KnowledgeMatcher  # noqa: E402
from retrieval.hybrid import TableCatalog  # noqa: E402
from rewrites.answer_shape import conventions_of  # noqa: E402
from rewrites.code_filters import code_bindings  # noqa: E402
from rewrites.inputs import Knowledge, RewriteInputs, StepTrace  # noqa: E402
from rewrites.literals import degenerate  # noqa: E402
from rewrites.pipeline import STEPS, run_phase  # noqa: E402
from rewrites.rate_direction import rate_specs  # noqa: E402
from scripts.replay_pruning import Databases, load_records, score  # noqa: E402
from tools.coverage import question_names_table  # noqa: E402
from tools.execution import result_signature  # noqa: E402

_CATALOGS: dict[str, TableCatalog] = {}

RESCUED = frozenset(s.label for s in STEPS if s.phase == "rescue")
"""Strategies of recorded rescued candidates: the replay runs the rescue phase itself instead."""


def catalog_of(db: Database) -> TableCatalog:
    """A :class:`TableCatalog` read from ``db``'s SQLAlchemy inspector: columns, primary keys, foreign keys."""
    if db.url not in _CATALOGS:
        from sqlalchemy import inspect

        inspector = inspect(db.engine)
        names = inspector.get_table_names()
        keys = {t: inspector.get_pk_constraint(t).get("constrained_columns") or [] for t in names}
        graph = join_graph({t: [(",".join(fk["constrained_columns"]),
                                 f"{fk['referred_table']}.{','.join(fk['referred_columns'])}")
                                for fk in inspector.get_foreign_keys(t)] for t in names})
        _CATALOGS[db.url] = TableCatalog(
            db_key=db.key, snapshot=None, names=names, schemas={},
            descriptions={t: f"Primary key: {', '.join(keys[t])}" if keys[t] else "" for t in names},
            columns={t: [c["name"] for c in inspector.get_columns(t)] for t in names}, graph=graph)
    return _CATALOGS[db.url]


def replay(db: Database, inputs: RewriteInputs, candidates: list[dict[str, object]],
           agree: int = 1) -> tuple[str | None, list[str]]:
    """(the SQL the cascade would stop at, the steps that fired on it) over the recorded ``candidates``.

    ``agree`` = 1: the cascade that stops at the first candidate with real rows. ``agree`` > 1: the voting cascade
    the small profile ships (``generation.consistency``): every candidate with real rows is a vote for its result
    (order-insensitive, :func:`tools.execution.result_signature`), the walk stops when ``agree`` votes name one
    result, else the largest group wins, ties to the group of the earliest candidate. A recorded dry-run repair
    is skipped when the candidate before it now runs, and the verifier's repairs only count in the fallback
    below (the verifier runs when no candidate answers). Only the recorded
    candidates exist: where a rewrite makes the shipped cascade write more candidates than were recorded, the
    replay votes over fewer. As in the live cascade, a candidate that runs with no rows (or one row of NULL/0)
    gets the ``rescue`` phase, and a rescued query with rows votes. With no vote at all, the first-with-rows walk
    decides (rescues, empty results).
    """
    if agree > 1:
        groups: dict[str, list[tuple[str, list[str]]]] = {}
        previous_ran = False
        for cand in candidates:
            sql, strategy = raw_sql(cand), cand.get("strategy")
            if not sql or strategy in RESCUED or strategy == "verifier" \
                    or (strategy == "repair" and previous_ran):  # no repair of a candidate that now runs
                continue
            sql, traces = run_phase("candidate", sql, inputs)
            res = db.run_query(sql, row_cap=1000)
            previous_ran = res.ok
            if res.ok and (not res.rows or degenerate(res.rows)):
                rescued, more = run_phase("rescue", sql, dataclasses.replace(inputs, got_rows=bool(res.rows)))
                if rescued != sql:
                    sql, traces = rescued, traces + more
                    res = db.run_query(sql, row_cap=1000)
            if res.ok and res.rows and not degenerate(res.rows):
                group = groups.setdefault(result_signature(res), [])
                group.append((sql, _fired(traces)))
                if len(group) >= agree:
                    return group[0]
        if groups:
            return max(groups.values(), key=len)[0]  # max keeps the first of equal sizes: the earliest group
    for cand in candidates:
        sql = raw_sql(cand)
        if not sql or cand.get("strategy") in RESCUED:
            continue
        sql, traces = run_phase("candidate", sql, inputs)
        res = db.run_query(sql, row_cap=10)
        if res.ok and res.rows and not degenerate(res.rows):
            return sql, _fired(traces)
        if res.ok:
            rescued, more = run_phase("rescue", sql, dataclasses.replace(inputs, got_rows=bool(res.rows)))
            if rescued != sql:
                return rescued, _fired(traces + more)
            if res.rows:
                return sql, _fired(traces)
    return None, []


def raw_sql(cand: dict[str, object]) -> str:
    """The candidate's SQL as the model wrote it (guarded), before the recorded candidate-phase rewrites.

    Records keep each candidate's rewrite traces (``rewrites``: step, phase, fired, before, after); the first
    fired candidate-phase step's ``before`` is the query before any rewrite. Older records have no traces: their
    rewritten SQL is used.
    """
    traces = cand.get("rewrites")
    if isinstance(traces, list):
        first = next((t for t in traces if isinstance(t, dict) and t.get("phase") == "candidate" and t.get("fired")
                      and t.get("before")), None)
        if first is not None:
            return str(first["before"])
    sql = cand.get("sql")
    return sql if isinstance(sql, str) else ""


def _fired(traces: list[StepTrace]) -> list[str]:
    return [t.step for t in traces if t.fired]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    Databases.add_arguments(parser)
    parser.add_argument("--knowledge", help="knowledge file whose approved records feed the knowledge steps")
    parser.add_argument("--per-step", action="store_true",
                        help="also replay with each step switched off: its trigger rate, wins and losses")
    parser.add_argument("--steps", default="",
                        help="comma list of step names: the --per-step table for these only (default: every step)")
    parser.add_argument("--agree", type=int, default=1,
                        help="votes that end the walk (1: the first candidate with rows; 2: the shipped voting "
                        "cascade, generation.consistency.agree)")
    parser.add_argument("records", nargs="+", help="evaluation record files (JSONL)")
    args = parser.parse_args()
    kb = load_knowledge(Path(args.knowledge)) if args.knowledge else None
    knowledge = Knowledge(
        codes=code_bindings(kb.approved()), rates=rate_specs(kb.approved()),
        matcher=KnowledgeMatcher([r for r in kb.approved() if r.type != "presentation"]),
        conventions=conventions_of(kb.presentations())) if kb else None
    rows = [r for r in load_records(args.records) if isinstance(r.get("candidates"), list)]
    dbs = Databases.from_args(args)
    before: list[int] = []
    after: list[int] = []
    changed: list[tuple[str, str, str | None, str]] = []
    outcome: dict[str, tuple[int, int, int, int]] = {}
    fired_by: dict[str, list[str]] = {}
    tolerant = [0, 0]
    for row in rows:
        db, _columns = dbs.of(row)
        question = str(row["question"])
        inputs = RewriteInputs(dialect=db.dialect, question=question, catalog=catalog_of(db), db=db,
                               knowledge=knowledge, names_table=functools.partial(question_names_table, question))
        final, fired = replay(db, inputs, row["candidates"], args.agree)
        fired_by[str(row["qid"])] = fired
        final = final or row.get("pred_sql")
        if final != row.get("pred_sql"):
            changed.append((row["qid"], ", ".join(fired) or "order", row.get("pred_sql"), str(final)))
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
    if args.per_step:
        only = {name.strip() for name in args.steps.split(",") if name.strip()}
        per_step(rows, dbs, knowledge, {qid: o[1] for qid, o in outcome.items()}, fired_by, only, args.agree)


def per_step(rows: list[dict[str, Any]], dbs: Databases, knowledge: Knowledge | None, on: dict[str, int],
             fired_by: dict[str, list[str]], only: set[str] | None = None, agree: int = 1) -> None:
    """Leave-one-out table: for each step, the replay with only that step off against the replay with all on.

    ``on`` is each question's strict EX with every step on; ``fired_by`` the steps that fired on its answer.
    A win is a question right with the step and wrong without it; a loss the reverse (both listed by id after
    the counts). Trigger: the share of
    questions whose answer the step changed. The ``fresh`` step (entity swap) needs value matches, which
    records do not keep: it is not replayed. ``only``: the names of the steps to tabulate (empty: all); ``agree``:
    as in :func:`replay`.
    """
    print("\nstep                    phase      trigger  wins  losses")
    for step in STEPS:
        if step.phase == "fresh" or (only and step.name not in only):
            continue
        switches = RewriteSettings().model_copy(update={step.name: False})
        won: list[str] = []
        lost: list[str] = []
        for row in rows:
            db, _columns = dbs.of(row)
            question = str(row["question"])
            inputs = RewriteInputs(dialect=db.dialect, question=question, catalog=catalog_of(db), db=db,
                                   knowledge=knowledge, switches=switches,
                                   names_table=functools.partial(question_names_table, question))
            final = replay(db, inputs, row["candidates"], agree)[0] or row.get("pred_sql")
            off = score(db, row["gold_sql"], final)[0]
            if on[row["qid"]] == 1 and off == 0:
                won.append(str(row["qid"]))
            elif on[row["qid"]] == 0 and off == 1:
                lost.append(str(row["qid"]))
        fired = sum(step.name in names for names in fired_by.values())
        print(f"{step.name:<23} {step.phase:<10} {fired / max(1, len(rows)):>6.1%}  {len(won):>4}  {len(lost):>6}"
              + (f"  won {' '.join(won) or '-'}; lost {' '.join(lost) or '-'}" if won or lost else ""))


if __name__ == "__main__":
    main()
