"""Paired summary of ``hint_exp.py`` output: EX of the plain and the hinted whole-schema listing.

python summarize_single_shot.py single-shot-opaque-gold-160.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from eval.metrics import paired_bootstrap  # noqa: E402


def main() -> None:
    """Print n, EX of each listing, the paired difference with its 95% bootstrap interval, wins and losses."""
    rows = [json.loads(line) for line in Path(sys.argv[1]).read_text(encoding="utf-8").splitlines()]
    base = [float(r["base"]) for r in rows]
    hint = [float(r["hint"]) for r in rows]
    n = len(rows)
    d = paired_bootstrap(hint, base)
    diff = f"{100 * d['diff']:+.1f} [{100 * d['low']:+.1f}, {100 * d['high']:+.1f}] points"
    print(f"n={n}  plain {int(sum(base))}/{n} = {100 * sum(base) / n:.1f}%  hinted {int(sum(hint))}/{n} = "
          f"{100 * sum(hint) / n:.1f}%")
    print(f"hinted - plain: {diff}")
    print(f"won {sum(h > b for b, h in zip(base, hint, strict=True))}, lost {sum(h < b for b, h in zip(base, hint, strict=True))}")


if __name__ == "__main__":
    main()
