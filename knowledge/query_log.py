"""Reading a query log: the past SQL that workload mining and onboarding learn from.

Two formats: JSON Lines (``.jsonl``), one object with ``sql`` per line (``#`` lines and blank lines skipped), or
plain SQL text with statements separated by ``;`` (split by sqlglot, so a ``;`` inside a string is kept).
"""

from __future__ import annotations

import json
from pathlib import Path

import sqlglot


def read_log(path: Path, dialect: str) -> list[str]:
    """SQL statements of a query log: JSONL objects with ``sql`` (``.jsonl``), else ``;``-separated SQL text.

    Raises:
        ValueError: the file cannot be read (the message names it).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read the query log {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ValueError(f"cannot read the query log {path}: not UTF-8 text ({exc.reason})") from exc
    if path.suffix.lower() == ".jsonl":
        out = []
        for n, line in enumerate(text.splitlines(), start=1):
            if line.strip() and not line.lstrip().startswith("#"):
                try:
                    out.append(str(json.loads(line)["sql"]))
                except (ValueError, KeyError, TypeError) as exc:
                    raise ValueError(f"{path}:{n}: expected a JSON object with 'sql'") from exc
        return out
    try:
        return [s.sql(dialect=dialect) for s in sqlglot.parse(text, read=dialect) if s is not None]
    except sqlglot.errors.SqlglotError:
        return [s for s in text.split(";") if s.strip()]
