"""Answers that join on a link no stated foreign key makes: how often right; the verified level with and without a cap.

Reads recorded runs and their databases (tools.join_links, agent.confidence); no model calls.

    python measure.py MODEL.json WIDE_ABBREV WIDE_ABBREV_NOFK RUN.jsonl ...

MODEL.json is a confidence model (agent/confidence_model.json of some commit); "before" is it without the
``unstated_joins`` cap, "after" with it.

A run whose file name holds ``nofk`` is read against WIDE_ABBREV_NOFK (no declared key), the others against
WIDE_ABBREV, ../shared/benchmarks/spider-wide and ../shared/benchmarks/spider-dev (first that has the db_id).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from fit_confidence import load_records  # noqa: E402

from agent.confidence import ConfidenceModel, assess  # noqa: E402


def main() -> None:
    """Read the arguments, tabulate, print."""
    model_path, abbrev, nofk, *runs = (Path(a) for a in sys.argv[1:])
    shared = ROOT.parent / "shared" / "benchmarks"
    model = ConfidenceModel.model_validate_json(model_path.read_text())
    without = model.model_copy(update={"hold_back": [h for h in model.hold_back if h != "unstated_joins"]})
    model = model.model_copy(update={"hold_back": [*without.hold_back, "unstated_joins"]})
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for run in runs:
        roots = [nofk] if "nofk" in run.name else [abbrev, shared / "spider-wide", shared / "spider-dev"]
        for rec in load_records([run], roots):
            links, stated = rec.get("unstated_joins") or [], rec.get("keys_stated")
            joins = (rec.get("confidence") or {}).get("features", {}).get("joins", 0) or " join " in \
                f" {rec['pred_sql'].lower()} "
            group = ("joins on a link no key states" + ("" if stated else " (database states no key)")) if links \
                else ("joins on stated keys only" if joins else "no join")
            before, after = assess(rec, without), assess(rec, model)
            g = groups[group]
            ok = bool(rec["ex"])
            g[0] += 1
            g[1] += ok
            g[2] += before is not None and before.level == "verified"
            g[3] += ok and before is not None and before.level == "verified"
            g[4] += after is not None and after.level == "verified"
            g[5] += ok and after is not None and after.level == "verified"
    print(f"{len(runs)} runs\n")
    print(f"{'answers':47s} {'n':>5s} {'EX':>6s} | {'verified before':>16s} {'right':>6s} | {'verified after':>15s} "
          f"{'right':>6s}")
    tot = [0] * 6
    for name, g in sorted(groups.items()):
        tot = [a + b for a, b in zip(tot, g, strict=True)]
        print(f"{name:47s} {g[0]:5d} {g[1] / g[0]:6.3f} | {g[2]:16d} {g[3] / max(g[2], 1):6.3f} | {g[4]:15d} "
              f"{g[5] / max(g[4], 1):6.3f}")
    print(f"{'all':47s} {tot[0]:5d} {tot[1] / tot[0]:6.3f} | {tot[2]:16d} {tot[3] / max(tot[2], 1):6.3f} | "
          f"{tot[4]:15d} {tot[5] / max(tot[4], 1):6.3f}")
    print(f"\nverified coverage: {tot[2] / tot[0]:.3f} -> {tot[4] / tot[0]:.3f}; right when verified: "
          f"{tot[3] / tot[2]:.3f} -> {tot[5] / tot[4]:.3f}")


if __name__ == "__main__":
    main()
