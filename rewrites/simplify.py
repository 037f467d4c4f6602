"""Deterministic, result-preserving simplification of model-written SQL, and a complexity measure.

Small models trained on Spider write ``FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.sid`` and, in
chain-of-thought candidates, self-joins such as ``FROM t AS T1 JOIN t AS T2 ON T1.id = T2.id``. Both return the
right rows but read badly for an analyst and, for the self-join, cost work. :func:`simplify_sql` rewrites, with
sqlglot, only what provably keeps the result:

- a self-join of a table to itself on its full primary key (inner join, nothing else in ON) is dropped and the
  second alias's columns point at the first (the primary key makes each row match exactly itself);
- in a query with a single SELECT (no subquery, CTE or set operation) whose tables each appear once, the
  aliases are replaced by the table names, and with a single table the column qualifiers are dropped.

Anything else (subqueries, outer joins, ambiguous names, a parse failure) is left as written.
:func:`complexity` ranks equivalent candidates, so selection prefers the simplest of those that agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

PrimaryKeys = Mapping[str, Sequence[str]]
"""Primary-key columns by table name, lower-cased (``{"singer": ["singer_id"]}``)."""


def simplify_sql(sql: str, dialect: str, primary_keys: PrimaryKeys | None = None) -> str:
    """``sql`` with needless primary-key self-joins and table aliases removed (see the module docstring).

    Args:
        sql: one read-only statement (already guarded).
        dialect: sqlglot dialect name (``sqlite``, ``postgres``, ``oracle``...).
        primary_keys: lower-cased table name -> primary-key columns; without it no self-join is dropped.

    Returns:
        The rewritten SQL in ``dialect``, or ``sql`` unchanged when nothing applies or it cannot be parsed.
        Never raises.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        select = single_select(tree)
        if select is None:
            return sql
        changed = _drop_key_self_joins(select, {k.lower(): [c.lower() for c in v]
                                                for k, v in (primary_keys or {}).items()})
        changed = _drop_aliases(select) or changed
        return tree.sql(dialect=dialect) if changed else sql
    except (SqlglotError, ValueError, KeyError, AttributeError, TypeError):
        return sql


def complexity(sql: str, dialect: str) -> tuple[int, int]:
    """``(joins + subqueries + set operations, length in tokens)`` of ``sql``: lower is simpler.

    Unparsable SQL ranks last (a very large first element). Used to prefer the simplest of candidates that
    returned the same result.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        tree = None
    if not isinstance(tree, exp.Query):
        return (1 << 30, len(sql.split()))
    nesting = sum(1 for _ in tree.find_all(exp.Join, exp.Subquery, exp.SetOperation))
    nesting += max(0, sum(1 for _ in tree.find_all(exp.Select)) - 1)
    return nesting, len(sql.split())


def single_select(tree: exp.Expr) -> exp.Select | None:
    """The statement's only SELECT, or None when it has subqueries, CTEs or set operations."""
    if not isinstance(tree, exp.Select) or tree.args.get("with"):
        return None
    if sum(1 for _ in tree.find_all(exp.Select)) != 1 or any(True for _ in tree.find_all(exp.Subquery)):
        return None
    return tree


def source_tables(select: exp.Select) -> list[exp.Table] | None:
    """The FROM table and every joined table, or None when one of them is not a plain table."""
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is None or not isinstance(from_.this, exp.Table):
        return None
    tables = [from_.this]
    for join in select.args.get("joins") or []:
        if not isinstance(join.this, exp.Table):
            return None
        tables.append(join.this)
    return tables


def table_ref(table: exp.Table) -> str:
    """How columns refer to ``table``: its alias, else its name (lower-cased)."""
    return (table.alias or table.name).lower()


def _drop_key_self_joins(select: exp.Select, keys: Mapping[str, list[str]]) -> bool:
    """Drop inner joins of a table to itself on its whole primary key; True when one was dropped."""
    tables = source_tables(select)
    if tables is None or not keys:
        return False
    changed = False
    for join in list(select.args.get("joins") or []):
        table = join.this
        pk = keys.get(table.name.lower())
        if not pk or join.args.get("using") or join.side or join.kind not in ("", "INNER", None):
            continue
        for other in tables:
            if other is table or other.name.lower() != table.name.lower():
                continue
            if _is_key_equality(join.args.get("on"), table_ref(table), table_ref(other), pk):
                _repoint(select, table_ref(table), other)
                join.pop()
                tables.remove(table)
                changed = True
                break
    return changed


def _is_key_equality(on: exp.Expr | None, a: str, b: str, pk: list[str]) -> bool:
    """True when ``on`` is exactly ``a.k = b.k`` for every primary-key column ``k`` (ANDed, any order)."""
    if on is None:
        return False
    terms = list(on.flatten()) if isinstance(on, exp.And) else [on]
    matched: set[str] = set()
    for term in terms:
        if not isinstance(term, exp.EQ) or not all(isinstance(s, exp.Column) for s in (term.left, term.right)):
            return False
        left, right = term.left, term.right
        assert isinstance(left, exp.Column) and isinstance(right, exp.Column)
        if left.name.lower() != right.name.lower() or {left.table.lower(), right.table.lower()} != {a, b}:
            return False
        matched.add(left.name.lower())
    return matched == set(pk) and len(terms) == len(pk)


def _repoint(select: exp.Select, old: str, table: exp.Table) -> None:
    """Make columns qualified by ``old`` refer to ``table`` instead."""
    alias = table.args.get("alias")
    target = alias.this.copy() if alias is not None else exp.to_identifier(table.name)
    for column in select.find_all(exp.Column):
        if column.table.lower() == old:
            column.set("table", target.copy())


def _drop_aliases(select: exp.Select) -> bool:
    """Replace table aliases by table names (or drop qualifiers of a lone table); True when anything changed."""
    tables = source_tables(select)
    if tables is None or not any(t.alias for t in tables):
        return False
    names = [t.name.lower() for t in tables]
    refs = {table_ref(t) for t in tables}
    if len(set(names)) != len(names) or any(t.db or t.catalog for t in tables):
        return False
    if any(n in refs and n != table_ref(t) for t, n in zip(tables, names, strict=True)):
        return False  # a table's name is another table's alias
    lone = len(tables) == 1
    by_ref = {table_ref(t): t for t in tables}
    for column in select.find_all(exp.Column):
        qualifier = column.table.lower()
        if not qualifier:
            continue
        if qualifier not in by_ref:
            return False  # a qualifier we cannot resolve: leave the statement alone
    for column in select.find_all(exp.Column):
        table = by_ref[column.table.lower()] if column.table else None
        if table is not None:
            column.set("table", None if lone else table.args["this"].copy())
    for table in tables:
        table.set("alias", None)
    _drop_star_qualifiers(select, lone)
    return True


def _drop_star_qualifiers(select: exp.Select, lone: bool) -> None:
    """``T1.*`` became ``singer.*`` (or ``*`` for a lone table, where sqlglot parses it as a Column)."""
    if not lone:
        return
    for column in select.find_all(exp.Column):
        if isinstance(column.this, exp.Star):
            column.set("table", None)
