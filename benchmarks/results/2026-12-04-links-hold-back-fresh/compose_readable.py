"""``while_readable_rows`` composed from a default run and a ``while_rows`` run of the same questions (model-free).

    python compose_readable.py DEFAULT.jsonl WHILE_ROWS.jsonl OUT.jsonl

The two hold-back modes differ only after a first candidate that returned rows by reading an opaque column:
``while_readable_rows`` then shows the links like the default, ``while_rows`` holds them back. So a question takes
DEFAULT's record when its first candidate failed, returned no rows or read an opaque column
(:func:`tools.question_terms.reads_opaque_column`), else WHILE_ROWS's record. Exact when the first candidate wrote
the same SQL in both runs (it sees the same prompt); prints how many did and how many records came from each run.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tools.question_terms import reads_opaque_column  # noqa: E402


def load(path: str) -> dict[str, dict]:
    """Evaluation records of one JSONL file by qid."""
    with open(path, encoding="utf-8") as handle:
        return {r["qid"]: r for r in map(json.loads, handle) if r}


def main() -> None:
    """Write the composed records and print where they came from."""
    default, held = load(sys.argv[1]), load(sys.argv[2])
    same, taken = 0, {"default": 0, "while_rows": 0}
    with open(sys.argv[3], "w", encoding="utf-8") as out:
        for qid, record in default.items():
            if qid not in held:
                continue
            first = record["candidates"][0]
            same += first["sql"] == held[qid]["candidates"][0]["sql"]
            shows = (first["status"] != "ok" or not first.get("row_count")
                     or reads_opaque_column(first["sql"] or "", "sqlite"))
            taken["default" if shows else "while_rows"] += 1
            out.write(json.dumps(record if shows else held[qid]) + "\n")
    print(f"first candidate alike in {same} questions; records from the default {taken['default']}, "
          f"from while_rows {taken['while_rows']}")


if __name__ == "__main__":
    main()
