"""Warm median of a whole recorded run if some of its questions had run another way, at the run's speed.

    python warm_estimate.py FRAME.jsonl NEW.jsonl OLD.jsonl

FRAME is one homogeneous run; its question order decides which questions are warm (a database asked before in
FRAME). NEW and OLD are two runs of the same subset of FRAME's questions, OLD the way FRAME ran them and NEW the
changed way, in the same order (so each question is cold or warm alike in both, whatever it was in FRAME). A
question of the subset gets FRAME's seconds plus NEW's minus OLD's, each run's seconds scaled to FRAME's speed by
the speed ratio (the median, over calls alike in both runs - same label, prompt and completion tokens - of
FRAME's seconds over the run's). The subset's own cold starts so cancel out, and the machine's speed on the day
too. Prints the medians of FRAME and of the estimate, over all questions and over the warm ones.
"""

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "2026-12-03-cascade-order"))
from paired_cost import load, speed_ratio, warm  # noqa: E402


def summary(name: str, latency: dict[str, float], hot: list[str]) -> str:
    """One line: the median seconds over all questions and over the warm ones."""
    return (f"{name}: median {statistics.median(latency.values()):.1f} s over {len(latency)}, warm median "
            f"{statistics.median(latency[q] for q in hot):.1f} s over {len(hot)}")


def main() -> None:
    """Print FRAME's medians, then the estimate with NEW's change over OLD."""
    frame, new, old = (load(path) for path in sys.argv[1:4])
    hot = warm(frame, list(frame))
    qids = [q for q in new if q in old and q in frame]
    to_frame = {}
    for name, run in (("new", new), ("old", old)):
        ratio, alike = speed_ratio(run, frame, qids)
        to_frame[name] = ratio
        print(f"{name} -> frame speed ratio x{ratio:.2f} over {alike} alike calls")
    base = {q: r["latency_s"] for q, r in frame.items()}
    est = dict(base)
    for q in qids:
        change = new[q]["latency_s"] * to_frame["new"] - old[q]["latency_s"] * to_frame["old"]
        est[q] = max(0.0, base[q] + change)
    print(summary("frame", base, hot))
    print(summary(f"estimate, {len(qids)} questions changed", est, hot))
    warm_changed = [q for q in hot if q in qids]
    print(f"warm questions of the subset in the frame: {len(warm_changed)}; their median "
          f"{statistics.median(base[q] for q in warm_changed):.1f} s -> "
          f"{statistics.median(est[q] for q in warm_changed):.1f} s")


if __name__ == "__main__":
    main()
