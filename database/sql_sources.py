"""Small sqlglot helpers shared by the deterministic SQL rewrites: parse one SELECT, list its own sources."""

from __future__ import annotations

import sqlglot
from sqlglot import exp


def parse_query(sql: str, dialect: str) -> exp.Expr | None:
    """``sql`` parsed as one statement of any kind (None when it does not parse). Never raises."""
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return None


def parse_select(sql: str, dialect: str) -> exp.Select | None:
    """``sql`` parsed as one plain SELECT (None when it does not parse or is a UNION, an INSERT, ...)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return None
    return tree if isinstance(tree, exp.Select) else None


def sources(select: exp.Select) -> list[exp.Expression]:
    """The sources of ``select``'s own FROM and JOINs, in order (tables, derived tables, functions)."""
    from_ = select.args.get("from_") or select.args.get("from")
    found = [from_.this] if from_ is not None else []
    return found + [j.this for j in select.args.get("joins") or []]


def tables(select: exp.Select) -> list[exp.Table]:
    """The plain named tables among :func:`sources`."""
    return [s for s in sources(select) if isinstance(s, exp.Table) and s.name]


def conjuncts(node: exp.Expr) -> list[exp.Expr]:
    """The top-level ``AND`` operands of ``node``, parentheses opened (``[node]`` when it is no ``AND``)."""
    if isinstance(node, exp.Paren):
        return conjuncts(node.this)
    if isinstance(node, exp.And):
        return conjuncts(node.left) + conjuncts(node.right)
    return [node]
