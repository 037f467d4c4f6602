"""SQL written for one engine, rewritten for another (sqlglot), for examples and definitions kept in one dialect.

The demo's examples file and knowledge file are written for SQLite; the same data loaded into PostgreSQL
(``scripts/postgres_target.py``) should get them in PostgreSQL. Besides sqlglot's transpilation, two rewrites
that sqlglot cannot know to make, because they depend on the data rather than the syntax:

* PostgreSQL 15 needs an alias on every derived table (``FROM (SELECT ...) AS sub1``);
* a column taken apart with ``SUBSTR`` is cast to text first: SQLite keeps dates as ISO text, an engine with
  date types stores them as ``DATE`` (``SUBSTR(CAST(d AS TEXT), 1, 7)`` is the month on both).
"""

from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp


@functools.lru_cache(maxsize=4096)
def transpile_sql(sql: str, source: str, target: str) -> str:
    """``sql`` (one statement or expression in sqlglot dialect ``source``) in dialect ``target``.

    Returns ``sql`` unchanged when the dialects are the same, or when it does not parse as exactly one
    statement (it is prompt text then, and the guard still checks whatever the model writes). Never raises.
    """
    if not sql.strip() or source == target:
        return sql
    try:
        trees = [t for t in sqlglot.parse(sql, read=source) if t is not None]
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
        return sql
    if len(trees) != 1:
        return sql
    tree = trees[0]
    if target == "postgres":
        for i, sub in enumerate(tree.find_all(exp.Subquery)):
            if not sub.alias and isinstance(sub.parent, (exp.From, exp.Join)):
                sub.set("alias", exp.TableAlias(this=exp.to_identifier(f"sub{i + 1}")))
    if source == "sqlite":
        for part in tree.find_all(exp.Substring):
            if isinstance(part.this, exp.Column):
                part.set("this", exp.cast(part.this.copy(), "text"))
    try:
        return tree.sql(dialect=target)
    except sqlglot.errors.SqlglotError:
        return sql
