"""Paired cost of two runs of the same questions: calls, opaque-links calls, tokens and seconds.

    python paired_cost.py NEW.jsonl OLD.jsonl

Prints, over the questions both runs hold: EX of each, LLM calls, opaque-links calls, prompt and completion tokens
and the median seconds per question. The two runs may have run at different machine speeds, so it also prints
the speed ratio: the median, over calls that are the same in both runs (same label, prompt and completion token
counts, hence the same prompt and reply), of OLD's seconds over NEW's; NEW's seconds times that ratio estimate
NEW at OLD's speed (median over all questions and over the warm ones - a database asked before in the run -
and the LLM seconds summed).
"""

import json
import statistics
import sys


def load(path: str) -> dict[str, dict]:
    """Evaluation records of one JSONL file by qid, in file order."""
    with open(path, encoding="utf-8") as handle:
        return {r["qid"]: r for r in map(json.loads, handle) if r}


def links_calls(record: dict) -> int:
    """The record's opaque-links calls (0 or 1)."""
    return sum(u["label"] == "opaque links" for u in record["usage"])


def speed_ratio(new: dict[str, dict], old: dict[str, dict], qids: list[str]) -> tuple[float, int]:
    """(median of OLD seconds / NEW seconds over the calls both runs made alike, how many such calls)."""
    ratios = []
    for qid in qids:
        seen = {
            (u["label"], u["prompt_tokens"], u["completion_tokens"]): u["latency_s"]
            for u in old[qid]["usage"]
        }
        for u in new[qid]["usage"]:
            before = seen.get((u["label"], u["prompt_tokens"], u["completion_tokens"]))
            if before and u["latency_s"] > 0:
                ratios.append(before / u["latency_s"])
    return (statistics.median(ratios) if ratios else 1.0), len(ratios)


def warm(records: dict[str, dict], qids: list[str]) -> list[str]:
    """The qids of ``qids`` whose database was asked before in the run (the prompt cache holds its prefix)."""
    seen: set[str] = set()
    out = []
    for qid in records:
        if qid in qids:
            db = records[qid]["db_id"]
            if db in seen:
                out.append(qid)
            seen.add(db)
    return out


def main() -> None:
    """Print the paired cost of the two record files named on the command line."""
    new, old = load(sys.argv[1]), load(sys.argv[2])
    qids = [q for q in new if q in old]
    ratio, alike = speed_ratio(new, old, qids)
    hot = warm(new, qids)
    print(f"questions {len(qids)} (warm {len(hot)})")
    for name, run in (("new", new), ("old", old)):
        print(
            f"{name}: EX {sum(run[q]['ex'] for q in qids)}, LLM calls {sum(run[q]['llm_calls'] for q in qids)}, "
            f"opaque-links calls {sum(links_calls(run[q]) for q in qids)}, prompt tokens "
            f"{sum(run[q]['prompt_tokens'] for q in qids)}, completion tokens "
            f"{sum(run[q]['completion_tokens'] for q in qids)}, median s "
            f"{statistics.median(run[q]['latency_s'] for q in qids):.1f} (warm "
            f"{statistics.median(run[q]['latency_s'] for q in hot):.1f}), LLM seconds summed "
            f"{sum(u['latency_s'] for q in qids for u in run[q]['usage']):.0f}"
        )
    print(f"speed ratio old/new over {alike} alike calls: {ratio:.2f}")
    print(
        f"new at old's speed: median s {statistics.median(new[q]['latency_s'] * ratio for q in qids):.1f} "
        f"(warm {statistics.median(new[q]['latency_s'] * ratio for q in hot):.1f}), LLM seconds summed "
        f"{ratio * sum(u['latency_s'] for q in qids for u in new[q]['usage']):.0f}"
    )
    for qid in qids:
        if new[qid]["ex"] != old[qid]["ex"]:
            print("EX differs", qid, "new", new[qid]["ex"], "old", old[qid]["ex"])


if __name__ == "__main__":
    main()
