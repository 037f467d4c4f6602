"""The vote replayed with a preference for candidates that join only on stated keys (no model call).

    cd benchmarks/results
    PYTHONPATH=CHECKOUT python 2026-12-07-unstated-joins/stated_vote.py $(cat 2026-12-07-selection-replays/runs.txt) \
        --roots ../shared/benchmarks/spider-wide WIDE_ABBREV CHECKOUT/data/spider-dev

Candidates are grouped by result as in ``../2026-12-07-selection-replays/replays.py`` (those that ran and returned
rows). A candidate is *assumed* when its SQL joins on a link no stated key of its database makes
(:func:`tools.join_links.unstated_joins`; only on databases that state keys). Three rules, each scored against
the gold query on the answers where it picks another group than the plain vote (largest group, first on ties):

- ``ties``: among tied largest groups, one with a candidate that is not assumed first;
- ``no_majority``: when no group holds more than half the candidates, the largest group of the candidates that are
  not assumed (when any);
- ``drop``: assumed candidates leave the vote whenever one that is not assumed ran.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-07-selection-replays"))

import replays  # noqa: E402

from database.connection import Database  # noqa: E402
from tools.join_links import unstated_joins  # noqa: E402

_DBS: dict[str, Database] = {}


def assumed(db_id: str, sql: str) -> bool:
    """True when ``sql`` joins on a link no stated key of the database makes (and the database states keys)."""
    path = replays.db_path(db_id)
    if path is None:
        return False
    db = _DBS.setdefault(db_id, Database(f"sqlite:///{path}"))
    found = unstated_joins(db, sql)
    return bool(found and found.states_keys)


def vote(pool: list[tuple[dict[str, Any], Any]]) -> Any:
    """The plain vote's group key: the largest result group, the first formed on ties."""
    groups: dict[Any, int] = {}
    for _, res in pool:
        key = replays.signature(res)
        groups[key] = groups.get(key, 0) + 1
    best = max(groups.values())
    return next(k for k, n in groups.items() if n == best)


def main() -> None:
    """Replay the three rules and print won / lost per rule."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--roots", nargs="+", type=Path, required=True)
    args = parser.parse_args()
    replays.ROOTS.extend(args.roots)
    stats: Counter[str] = Counter()
    for f, r in replays.records(args.runs):
        pool = replays.ran_with_rows(r)
        if len(pool) < 2:
            continue
        flags = [assumed(r["db_id"], c["sql"]) for c, _ in pool]
        if not any(flags):
            continue
        stats["answers with an assumed candidate"] += 1
        plain = vote(pool)
        results = {replays.signature(res): res for _, res in pool}
        sizes = Counter(replays.signature(res) for _, res in pool)
        best = max(sizes.values())
        clean = [(c, res) for (c, res), a in zip(pool, flags, strict=True) if not a]
        picks: dict[str, Any] = {}
        tied = [k for k, n in sizes.items() if n == best]
        clean_keys = {replays.signature(res) for _, res in clean}
        picks["ties"] = next((k for k in tied if k in clean_keys), plain) if len(tied) > 1 else plain
        picks["no_majority"] = vote(clean) if clean and best * 2 <= len(pool) else plain
        picks["drop"] = vote(clean) if clean else plain
        for rule, key in picks.items():
            if key != plain:
                a, b = replays.is_right(r, results[plain]), replays.is_right(r, results[key])
                stats[f"{rule}: changed"] += 1
                stats[f"{rule}: won"] += (not a) and b
                stats[f"{rule}: lost"] += a and not b
                if a != b:
                    print(rule, f.name, r["qid"], int(a), "->", int(b))
    for key in sorted(stats):
        print(f"{key}: {stats[key]}")


if __name__ == "__main__":
    main()
