"""Questions the model-free boundary check would answer with "which <entity> you mean" (unstated_entity).

    PYTHONPATH=CHECKOUT python count_unstated_entity.py SPIDER_FOLDER [DEV_JSON]

For every question of ``DEV_JSON`` (default ``SPIDER_FOLDER/dev.json``) ``knowledge.parameters.unstated_entity``
of the checkout on PYTHONPATH is asked with the entity words the agent uses (the database's one-word table
names, folded, as ``tools.answerability``) and no linked value (the agent skips a table whose value the question
names, so this counts an upper bound). Every Spider question is answerable: each hit is a question the assistant
would answer with a follow-up question instead.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from knowledge.lookup import normalise
from knowledge.parameters import unstated_entity


def entity_words(sqlite_file: Path) -> dict[str, str]:
    """Folded one-word table names -> table (lower-cased)."""
    with sqlite3.connect(sqlite_file) as con:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    words: dict[str, str] = {}
    for name in names:
        folded = normalise(name.replace("_", " "))
        if len(folded) == 1 and folded[0].isalpha() and len(folded[0]) > 2:
            words[folded[0]] = name.lower()
    return words


def main() -> int:
    """Print the count and the questions."""
    folder = Path(sys.argv[1])
    dev = Path(sys.argv[2]) if len(sys.argv) > 2 else folder / "dev.json"
    cache: dict[str, dict[str, str]] = {}
    hits = []
    questions = json.loads(dev.read_text(encoding="utf-8"))
    for q in questions:
        db = q["db_id"]
        if db not in cache:
            cache[db] = entity_words(next((folder / "database" / db).glob("*.sqlite")))
        entity = unstated_entity(q["question"], cache[db], set())
        if entity:
            hits.append((entity, q["question"]))
    print(f"{dev}: {len(hits)} of {len(questions)}")
    for entity, question in hits:
        print(f"  [{entity}] {question}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
