"""Paired EX and cost of a hold-back run against the default, split by whether the hold-back acted.

    python split_engaged.py HELD.jsonl DEFAULT.jsonl

On a question the hold-back acted when DEFAULT made the opaque-links call and HELD made it later in the question
(after more candidates) or not at all. Where it did not act, both runs took the same code path, so a difference
there is run-to-run variation of the server (the links call or a candidate writing other text at temperature 0).
Prints, for each part: questions, EX of each run, won/lost, LLM calls, opaque-links calls, prompt tokens and the
LLM seconds summed, then each differing question.
"""

import json
import sys


def load(path: str) -> dict[str, dict]:
    """Evaluation records of one JSONL file by qid."""
    with open(path, encoding="utf-8") as handle:
        return {r["qid"]: r for r in map(json.loads, handle) if r}


def links_at(record: dict) -> int | None:
    """Position of the opaque-links call among the question's LLM calls, None when it made none."""
    labels = [u["label"] for u in record["usage"]]
    return labels.index("opaque links") if "opaque links" in labels else None


def acted(held: dict, default: dict) -> bool:
    """True when the default made the links call and the held run made it later or not at all."""
    first, later = links_at(default), links_at(held)
    return first is not None and (later is None or later > first)


def main() -> None:
    """Print the two parts' tables and the differing questions."""
    held, default = load(sys.argv[1]), load(sys.argv[2])
    qids = [q for q in default if q in held]
    for name, part in (("acted", [q for q in qids if acted(held[q], default[q])]),
                       ("did not act", [q for q in qids if not acted(held[q], default[q])])):
        won = sum(held[q]["ex"] > default[q]["ex"] for q in part)
        lost = sum(held[q]["ex"] < default[q]["ex"] for q in part)
        print(f"{name}: {len(part)} questions; EX held {sum(held[q]['ex'] for q in part)}, default "
              f"{sum(default[q]['ex'] for q in part)} (won {won}, lost {lost})")
        for label, run in (("held", held), ("default", default)):
            print(f"  {label}: LLM calls {sum(run[q]['llm_calls'] for q in part)}, opaque-links calls "
                  f"{sum(links_at(run[q]) is not None for q in part)}, prompt tokens "
                  f"{sum(run[q]['prompt_tokens'] for q in part)}, LLM seconds summed "
                  f"{sum(u['latency_s'] for q in part for u in run[q]['usage']):.0f}")
        for q in part:
            if held[q]["ex"] != default[q]["ex"]:
                print(f"  differs {q}: held {held[q]['ex']}, default {default[q]['ex']}")


if __name__ == "__main__":
    main()
