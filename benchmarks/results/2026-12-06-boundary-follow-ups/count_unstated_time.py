"""Questions the model-free boundary check would answer with "I need the period" (knowledge.parameters.unstated_time).

    PYTHONPATH=CHECKOUT python count_unstated_time.py DEV_JSON_OR_JSONL...

Every question of the given files (a Spider ``dev.json`` list, or JSONL with ``question`` and optionally ``expect``)
is passed to ``unstated_time`` of the checkout on PYTHONPATH. Prints, per file, how many questions it fires on,
and each of them with its expected kind when the file gives one. Every Spider question is answerable, so each
hit there is a question the assistant would not answer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from knowledge.parameters import unstated_time


def questions(path: Path) -> list[tuple[str, str]]:
    """(question, expected kind or '') of a JSON list or a JSONL file."""
    text = path.read_text(encoding="utf-8")
    rows = json.loads(text) if path.suffix == ".json" else [json.loads(line) for line in text.splitlines() if line]
    return [(r["question"], r.get("expect", "")) for r in rows if isinstance(r, dict) and "question" in r]


def main() -> int:
    """Print the counts."""
    for name in sys.argv[1:]:
        qs = questions(Path(name))
        hits = [(q, e) for q, e in qs if unstated_time(q)]
        print(f"{name}: {len(hits)} of {len(qs)}")
        for q, e in hits:
            print(f"  [{e or '-'}] {q}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
