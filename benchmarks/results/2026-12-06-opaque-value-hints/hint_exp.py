"""Single-shot EX over the whole schema, plain listing against the listing with opaque-column value hints.

    python hint_exp.py opq.jsonl single-shot-opaque-gold-160.jsonl WIDE_ABBREV

Needs the model server (``nl2sql llm serve``, port 8765). For each database, every question is asked with the
plain listing (``tools.whole_schema.whole_schema_listing``), then with ``value_hints=True``, temperature 0, the
single-shot prompt (``prompts.baseline``); gold and predicted SQL run read-only and are compared with
``eval.metrics.results_match``. One output line per question: ``base`` / ``hint`` (1 right), the SQL and the
seconds of each call. Resumes after an interruption. (The recorded run used the same hint rules written inline,
before ``retrieval/opaque_hints.py`` existed; the hints are the same text.)
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
import urllib.request
from itertools import groupby
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from database.connection import Database  # noqa: E402
from eval.metrics import results_match  # noqa: E402
from prompts import baseline as prompt  # noqa: E402
from tools.candidate import extract_sql  # noqa: E402
from tools.whole_schema import whole_schema_listing  # noqa: E402

URL = "http://127.0.0.1:8765/v1/chat/completions"


def ask(system: str, question: str) -> str:
    """The model's reply to the single-shot prompt (temperature 0, at most 256 tokens)."""
    body = {"messages": [{"role": "system", "content": system},
                         {"role": "user", "content": prompt.USER.format(question=question)}],
            "temperature": 0, "max_tokens": 256}
    req = urllib.request.Request(URL, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as reply:
        return str(json.load(reply)["choices"][0]["message"]["content"])


def run(path: str, sql: str) -> list[Any]:
    """Rows of ``sql`` on the SQLite file, opened read-only."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def main() -> None:
    """Answer every question of the input file with both listings; append to the output file."""
    items = [json.loads(line) for line in Path(sys.argv[1]).read_text(encoding="utf-8").splitlines()]
    out, root = Path(sys.argv[2]), sys.argv[3]
    done = {json.loads(line)["i"] for line in out.open(encoding="utf-8")} if out.exists() else set()
    with out.open("a", encoding="utf-8") as f:
        for db_id, group in groupby([it for it in items if it["i"] not in done], key=lambda x: x["db_id"]):
            path = f"{root}/database/{db_id}/{db_id}.sqlite"
            db = Database(f"sqlite:///{path}")
            recs = []
            for it in group:
                try:
                    recs.append((dict(it), run(path, it["query"])))
                except sqlite3.Error:
                    continue
            for variant in ("base", "hint"):
                system = prompt.SYSTEM.format(dialect="sqlite",
                                              schema=whole_schema_listing(db, value_hints=variant == "hint"))
                for rec, gold in recs:
                    started = time.time()
                    sql = extract_sql(ask(system, rec["question"])) or ""
                    try:
                        ok = results_match(gold, run(path, sql), ordered="order by" in rec["query"].lower())
                    except sqlite3.Error:
                        ok = False
                    rec[variant], rec[f"{variant}_sql"] = int(ok), sql
                    rec[f"{variant}_s"] = round(time.time() - started, 1)
            for rec, _ in recs:
                f.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
