"""Replay recorded cascades in another candidate order: the answer it would give and the calls it would make.

    python replay_order.py --spider FOLDER RECORDS.jsonl [--order whole,plain,direct,qp,dc]

Reads evaluation records of the cascade (``generation.consistency.agree`` = 2, ties to the earliest candidate)
and groups each record's candidates into units: a fresh candidate of one strategy with the repairs and
model-free rescues that followed it. The cascade is then simulated twice over the same units, in the recorded
strategy order and in ``--order``: units are taken in order, each candidate uses a turn (rescues ride with
theirs; at most as many turns as strategies), each candidate that returns rows votes for its result (grouped by
:func:`tools.execution.result_signature`, as the agent groups them), and writing stops at two votes for one
result; the largest group wins, ties to the group written first. A record without a ``whole_schema``
candidate had it skipped (a schema too large, or a run before it existed): both orders leave it out.

When the new order needs a unit the run never wrote (the recorded cascade stopped before it, e.g. ``plain``
after ``whole_schema`` and ``direct`` agreed), the replay cannot say what it returns, but the answer is still
the recorded one: the recorded answer's result already has two votes among the units the new order writes at
the latest. Its calls lie between two bounds (the missing unit agrees, or it does not and the rest follow).

Prints per file: questions replayed exactly and with an unknown unit, answers that change (each scored against
the gold query), candidate calls per question (recorded order, new order exact or as bounds), and opaque-links
calls (made when a unit that shows links - ``direct`` or a repair - is written). Needs no model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from core.settings_candidates import SHORT_NAMES  # noqa: E402
from scripts.replay_pruning import Databases, load_records, score  # noqa: E402
from tools.execution import result_signature  # noqa: E402

FRESH = set(SHORT_NAMES.values())
"""Strategies that start a unit: a fresh candidate written by the model."""

RESCUES = {"literal", "as_of", "relaxed", "unasked"}
"""Model-free rescues of an empty result: they ride with the candidate they rescue and use no turn."""

SHOWS_LINKS = {"direct", "repair"}
"""Units whose prompt shows the opaque-column links (the first of them makes the links call)."""


def units(candidates: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Fresh strategy -> [its candidate, the repairs and rescues after it] (verifier entries left out)."""
    out: dict[str, list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] | None = None
    for cand in candidates:
        strategy = str(cand.get("strategy"))
        if strategy in FRESH:
            current = out.setdefault(strategy, [])
            current.append(cand)
        elif current is not None and (strategy == "repair" or strategy in RESCUES):
            current.append(cand)
    return out


class Signatures:
    """Result signature of each candidate's SQL on one database (None: failed or no rows), computed once."""

    def __init__(self, db: Any) -> None:
        """Signatures on ``db`` (a :class:`database.connection.Database`)."""
        self.db, self.memo = db, {}

    def of(self, cand: dict[str, Any]) -> str | None:
        """The signature of ``cand``'s rows when it returned rows, else None."""
        sql = cand.get("sql")
        if cand.get("status") != "ok" or not sql:
            return None
        if sql not in self.memo:
            res = self.db.run_query(str(sql), row_cap=10_000)
            self.memo[sql] = result_signature(res) if res.ok and res.rows else None
        return self.memo[sql]


def simulate(
    order: list[str], have: dict[str, list[dict[str, Any]]], sigs: Signatures, turns: int
) -> tuple[str | None, dict[str, Any] | None, int, bool, str | None]:
    """(chosen signature, a candidate of it, candidate calls, links call made, first missing unit or None)."""
    groups: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    calls, used, links, position = 0, 0, False, 0
    for strategy in order:
        if strategy not in have:
            return None, None, calls, links, strategy
        for cand in have[strategy]:
            is_rescue = str(cand.get("strategy")) in RESCUES
            if not is_rescue:
                if used == turns:
                    break
                used += 1
                calls += 1
                links = links or str(cand.get("strategy")) in SHOWS_LINKS
            sig = sigs.of(cand)
            position += 1
            if sig is not None:
                groups.setdefault(sig, []).append((position, cand))
                if len(groups[sig]) >= 2:
                    return sig, cand, calls, links, None
        if used == turns:
            break
    if not groups:
        return None, None, calls, links, None
    best = max(groups, key=lambda sig: (len(groups[sig]), -groups[sig][0][0]))
    return best, groups[best][0][1], calls, links, None


def main(argv: list[str] | None = None) -> int:
    """Replay each record file and print the comparison; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    Databases.add_arguments(parser)
    parser.add_argument(
        "--order", default="whole,plain,direct,qp,dc", help="the new cascade order (short names)"
    )
    parser.add_argument("records", nargs="+", help="evaluation record files (JSONL) of cascade runs")
    args = parser.parse_args(argv)
    new_order = [SHORT_NAMES[s.strip()] for s in args.order.split(",")]
    dbs = Databases.from_args(args)
    for path in args.records:
        rows = [r for r in load_records([path]) if r.get("config") != "single_shot" and r.get("candidates")]
        exact = unknown = same = faithful = 0
        won: list[str] = []
        lost: list[str] = []
        calls_old: list[int] = []
        calls_new_low: list[int] = []
        calls_new_high: list[int] = []
        links_old = links_new_low = links_new_high = 0
        for row in rows:
            db, _ = dbs.of(row)
            sigs = Signatures(db)
            have = units(row["candidates"])
            recorded = [str(c.get("strategy")) for c in row["candidates"] if str(c.get("strategy")) in FRESH]
            turns = 5 if "whole_schema" in have else 4
            old_order = recorded + [s for s in new_order if s not in recorded]
            sig_old, cand_old, c_old, l_old, _ = simulate(old_order, have, sigs, turns)
            order = [
                s for s in new_order if s != "whole_schema" or "whole_schema" in have
            ]  # skipped: too large
            sig_new, cand_new, c_new, l_new, missing = simulate(order, have, sigs, turns)
            pred = sigs.of({"status": "ok", "sql": row.get("pred_sql")})
            faithful += sig_old is not None and pred == sig_old
            had_links = any(u.get("label") == "opaque links" for u in row.get("usage") or [])
            calls_old.append(c_old)
            links_old += had_links
            if missing is not None:
                unknown += 1
                same += 1
                rest = [s for s in order[order.index(missing) + 1 :] if s in have]
                extra = sum(1 for s in rest for c in have[s] if str(c.get("strategy")) not in RESCUES)
                calls_new_low.append(c_new + 1)
                calls_new_high.append(min(turns, c_new + 1 + extra))
                shows_later = any(str(c.get("strategy")) in SHOWS_LINKS for s in rest for c in have[s])
                links_new_low += had_links and l_new
                links_new_high += had_links and (l_new or shows_later)
                continue
            exact += 1
            calls_new_low.append(c_new)
            calls_new_high.append(c_new)
            links_new_low += had_links and l_new
            links_new_high += had_links and l_new
            old_sql = cand_old.get("sql") if cand_old else None
            new_sql = cand_new.get("sql") if cand_new else None
            if sig_old == sig_new:
                same += 1
                continue
            a = score(db, row["gold_sql"], str(old_sql) if old_sql else None)[0]
            b = score(db, row["gold_sql"], str(new_sql) if new_sql else None)[0]
            if b > a:
                won.append(str(row["qid"]))
            elif a > b:
                lost.append(str(row["qid"]))
            else:
                same += 1
        n = len(rows)
        print(f"{Path(path).name}: {n} questions, {exact} replayed exactly, {unknown} with an unwritten unit")
        print(f"  recorded order replayed to the recorded answer's result: {faithful}")
        print(f"  answer changed and scored: won {len(won)} {won}, lost {len(lost)} {lost}; the same {same}")
        print(
            f"  candidate calls / question: recorded order {sum(calls_old) / n:.2f}, new order "
            f"{sum(calls_new_low) / n:.2f} to {sum(calls_new_high) / n:.2f}"
        )
        print(f"  opaque-links calls: recorded {links_old}, new order {links_new_low} to {links_new_high}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
