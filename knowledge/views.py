"""Knowledge views: approved ``view`` records, shown to the model as tables and expanded into WITH clauses.

A view record names a relation computed from the database (``daily_return``: each stock's close, the previous
trading day's close and the return between them) with its SQL. The model sees each view as one line beside the
schema (name, output columns, meaning) and may read it like a table; before the SQL is guarded and run, every
view it references (and every view those reference) becomes a common table expression in front of the query.
The multi-step computation is written once by a person who knows the database; the small model only filters,
joins and aggregates it. Same idea as the semantic models of a semantic layer (WrenAI's MDL models defined by
SQL, dbt models) and BAR-SQL's binding of metrics to their mandatory constraints.

The SQL shown to the user is the expanded one, so it runs anywhere without the knowledge file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sqlglot
from sqlglot import exp

from knowledge.records import KnowledgeRecord
from knowledge.view_sql import IDENTIFIER, ViewError, view_columns

HEADER = ("Knowledge views: ready tables computed from the tables above; read them like tables instead of recomputing "
          "what they hold (name(columns) -- meaning):\n")


def render_views(views: Sequence[KnowledgeRecord], dialect: str = "sqlite") -> str:
    """The views block for the schema prompt ('' without views): a header, then one line per view.

    Lines keep the file order, so the block (and the cached prompt prefix) is the same for every question.
    A view whose SQL is invalid is left out (the knowledge file check reports it).
    """
    lines = []
    for view in views:
        try:
            columns = view_columns(view.sql or "", dialect)
        except ViewError:
            continue
        lines.append(f"{view.name}({', '.join(columns)}) -- {view.definition.strip()}")
    return HEADER + "\n".join(lines) if lines else ""


def _table_names(tree: Any) -> set[str]:
    return {t.name.lower() for t in tree.find_all(exp.Table) if t.name and not t.args.get("db")}


def expand_views(sql: str, views: Iterable[KnowledgeRecord], dialect: str = "sqlite") -> str:
    """``sql`` with every referenced view (transitively) defined as a CTE in front of its own WITH clause.

    A name the query defines itself as a CTE is the query's own and is not expanded. Views come first, ordered so
    that a view follows the views it reads. Returns ``sql`` unchanged when it references no view or does not
    parse (the guard then reports the problem). Never raises.
    """
    by_name = {v.name.lower(): v for v in views if v.sql and IDENTIFIER.match(v.name)}
    if not by_name:
        return sql
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return sql
    if not isinstance(tree, exp.Query):
        return sql
    own = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    wanted = [n for n in sorted(_table_names(tree)) if n in by_name and n not in own]
    if not wanted:
        return sql
    ordered: list[str] = []
    bodies: dict[str, Any] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in ordered or name in path:
            return
        try:
            body = sqlglot.parse_one(by_name[name].sql or "", read=dialect)
        except sqlglot.errors.SqlglotError:
            return
        for used in sorted(_table_names(body)):
            if used in by_name and used != name:
                visit(used, (*path, name))
        bodies[name] = body
        ordered.append(name)

    for name in wanted:
        visit(name, ())
    ctes = [exp.CTE(this=bodies[n], alias=exp.TableAlias(this=exp.to_identifier(by_name[n].name)))
            for n in ordered]
    key = "with_" if "with_" in tree.arg_types else "with"  # sqlglot >= 28 renamed the argument
    existing = tree.args.get(key)
    if existing is not None:
        existing.set("expressions", [*ctes, *existing.expressions])
    else:
        tree.set(key, exp.With(expressions=ctes))
    return tree.sql(dialect=dialect)


def contract_views(sql: str, views: Iterable[KnowledgeRecord], dialect: str = "sqlite") -> str:
    """The inverse of :func:`expand_views`: drop each CTE that is exactly a view's definition, so the query reads it.

    Few-shot examples and approved feedback are stored expanded (they run anywhere); shown to the model with the
    views in the schema, ``WITH daily_return AS (<its SQL>) SELECT ... FROM daily_return`` becomes ``SELECT ...
    FROM daily_return``, which teaches the model to read the view. A CTE whose body differs from the view's SQL
    (even slightly) is kept. Returns ``sql`` unchanged when nothing matches or it does not parse. Never raises.
    """
    bodies: dict[str, str] = {}
    for view in views:
        if view.sql and IDENTIFIER.match(view.name):
            try:
                bodies[view.name.lower()] = sqlglot.parse_one(view.sql, read=dialect).sql(dialect=dialect)
            except sqlglot.errors.SqlglotError:
                continue
    if not bodies or "with" not in sql.lower():
        return sql
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return sql
    key = "with_" if "with_" in tree.arg_types else "with"
    existing = tree.args.get(key)
    if existing is None:
        return sql
    kept = [c for c in existing.expressions
            if bodies.get(c.alias_or_name.lower()) != c.this.sql(dialect=dialect)]
    if len(kept) == len(existing.expressions):
        return sql
    if kept:
        existing.set("expressions", kept)
    else:
        tree.set(key, None)
    return str(tree.sql(dialect=dialect))
