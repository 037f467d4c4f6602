"""Choice accuracy of prompt variants for the column-choice check, on look-alikes flagged in recorded runs.

    python choice_prompts.py VARIANT WIDE_ABBREV RECORDS.jsonl [RECORDS.jsonl ...]

VARIANT is ``shipped`` (the prompt of tools.column_choice), ``plain`` (the same without abbreviations read out),
``values`` (a warning that readable names can mislead), ``reason`` (a short reasoning field first) or ``anon``
(options shown as letters with their values only). Each (question, table, column, SQL) flagged by
find_lookalikes in any of the records is asked once. Label: the column read when the gold query reads it and none
of the opaque options; the one opaque option the gold query reads when it does not read the column; else none.
Prints each pick and the counts: keeps that were right, switches away from a right column, switches to the right
opaque column, and missed switches.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any, Literal

import sqlglot
from pydantic import Field, create_model
from sqlglot import exp

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
warnings.filterwarnings("ignore")

from core.llm import LLMProvider, UsageLog, chat, invoke_structured  # noqa: E402
from core.local_server import ensure_local_server  # noqa: E402
from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from knowledge.abbreviations import EXPANSIONS, expand_name, split_words  # noqa: E402
from tools.candidate import system_prompt  # noqa: E402
from tools.column_choice import LookAlike, columns_read, find_lookalikes, render_choice  # noqa: E402
from tools.opaque_columns import OpaqueColumn, opaque_columns, stored_samples  # noqa: E402
from tools.whole_schema import whole_schema_listing  # noqa: E402

ASK = 'Which of these columns holds "{term}" as the question means it?'


def _reading(name: str) -> str:
    parts = split_words(name)
    text = expand_name(name) or " ".join(EXPANSIONS.get(p, p) for p in parts)
    return f" ({text})" if text.split() != parts else ""


def _prompt(variant: str, question: str, sql: str, look: LookAlike, options: list[OpaqueColumn]) -> tuple[str, list[str]]:
    """The user prompt and the labels the reply chooses from (column names, or letters for ``anon``)."""
    head = f"Question: {question}\n\nThe table {look.table} has these columns, each shown with some of its stored values:\n"
    if variant == "shipped":
        return render_choice(question, sql, look, options), [o.column for o in options]
    if variant == "anon":
        letters = [chr(ord("A") + i) for i in range(len(options))]
        lines = "\n".join(f"- {letter}: {o.values()}" for letter, o in zip(letters, options, strict=True))
        return (f"Question: {question}\n\nThese are columns of the table {look.table}, each shown by some of its "
                f'stored values:\n{lines}\n\nWhich column\'s stored values are "{look.term}" as the question means '
                "it?"), letters
    plain = variant == "plain"
    lines = "\n".join(f"- {o.column}{'' if plain else _reading(o.column)}: {o.values()}" for o in options)
    tail = {"plain": ASK + " Judge by the stored values more than by the name.",
            "values": "Columns named like c3 have no meaningful name: only their values say what they hold. A "
                      "readable name can still mean something else than the question's words (a sponsor name is "
                      f'not a player name). Which column\'s stored values are "{look.term}" as the question means it?',
            "reason": ASK + f' First say in a few words what kind of values "{look.term}" should be, then choose '
                      "the column whose stored values are of that kind."}[variant]
    return head + lines + "\n\n" + tail.format(term=look.term), [o.column for o in options]


def main() -> int:
    """Ask every flagged look-alike once with the variant's prompt; print picks and counts."""
    variant, root, files = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    settings = Settings()
    ensure_local_server(settings)
    llms = LLMProvider(settings)
    dbs: dict[str, tuple[Database, list[Any], str]] = {}
    items: dict[tuple[str, str, str, str], tuple[dict[str, Any], LookAlike, Any, list[str], str | None]] = {}
    for path in files:
        for line in Path(path).read_text().splitlines():
            rec = json.loads(line)
            if not rec.get("pred_sql"):
                continue
            if rec["db_id"] not in dbs:
                db = Database(f"sqlite:///{next((root / 'database' / rec['db_id']).glob('*.sqlite'))}")
                dbs[rec["db_id"]] = (db, read_schema(db, sample_rows=0), system_prompt("sqlite", whole_schema_listing(db)))
            _, tables, _ = dbs[rec["db_id"]]
            for look in find_lookalikes(rec["question"], rec["pred_sql"], tables, "sqlite"):
                key = (rec["qid"], look.table, look.column, rec["pred_sql"])
                table = next(t for t in tables if t.name == look.table)
                read = {c.lower() for c in columns_read(rec["pred_sql"], "sqlite")}
                opaque = [n for _, n in opaque_columns([table]) if n.lower() not in read][:8]
                if key in items or not opaque:
                    continue
                try:
                    gold = {c.name.lower() for c in sqlglot.parse_one(rec["gold_sql"], read="sqlite").find_all(exp.Column)}
                except sqlglot.errors.SqlglotError:
                    gold = set()
                in_gold = [n for n in opaque if n.lower() in gold]
                label = (look.column if look.column.lower() in gold and not in_gold
                         else in_gold[0] if len(in_gold) == 1 and look.column.lower() not in gold else None)
                items[key] = (rec, look, table, opaque, label)
    counts = {"keep_right": 0, "wrong_switch": 0, "right_switch": 0, "missed": 0}
    for rec, look, table, opaque, label in items.values():
        db, _, system = dbs[rec["db_id"]]
        names = [c.name for c in table.columns if c.name == look.column or c.name in opaque]
        options = [OpaqueColumn(table.name, n, "", *stored_samples(db, table.name, n)) for n in names]
        user, labels = _prompt(variant, rec["question"], rec["pred_sql"], look, options)
        allowed: Any = Literal[tuple(labels)]
        fields: dict[str, Any] = {"column": (allowed, ...)}
        if variant == "reason":
            fields = {"kind": (str, Field(description="what the values should be")), **fields}
        try:
            reply = invoke_structured(llms, "generator", chat(system, user), create_model("Choice", **fields),
                                      UsageLog(), temperature=0.0, max_tokens=80 if variant == "reason" else 40,
                                      label="column choice")
            pick = names[labels.index(reply.model_dump()["column"])]
        except Exception as exc:  # noqa: BLE001 - a failed call keeps the column, as the product does
            print(f"    call failed: {exc}")
            pick = look.column
        if label == look.column:
            counts["keep_right" if pick == look.column else "wrong_switch"] += 1
        elif label:
            counts["right_switch" if pick == label else "missed"] += 1
        print(rec["qid"], look.column, repr(look.term), "label", label, "pick", pick, "ex", rec.get("ex"))
    print(variant, "flagged", len(items), counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
