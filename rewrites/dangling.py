"""Dangling-join pruning: drop inner joins to tables the query never reads and the question never names.

A small model shown join paths (or a schema with foreign keys) tends to follow them whether or not the question
needs them: "Show name, country, age for all singers" came back as ``singer JOIN singer_in_concert JOIN concert
JOIN stadium`` - three tables no column of the result, filter, grouping or ordering reads. Such a join is not
harmless: it drops the rows without a match and repeats those with several (10 rows instead of 6 singers).
On the Spider sample this was the largest single cause of the cascade losing to single-shot without examples.

:func:`prune_dangling_joins` removes, with sqlglot, an inner join to a table when

- no column outside the join conditions belongs to it (columns are resolved by qualifier, or for unqualified
  ones by the table's column list),
- the join condition is only column equalities with one other table (a filter inside ON is a use), and
- the query counts nothing (``COUNT(*)`` or ``COUNT(x)`` over a join may be counting the joined rows: "the
  semester with the most students" joins the enrolments to count them; ``COUNT(DISTINCT x)`` is fine), and
- the question does not name the table (the caller's ``mentioned`` predicate, e.g. every word of
  ``Student_Enrolment`` appears in some form in the question): "airports that have flights" keeps ``flights``,
- and the caller's ``lossless`` check lets it go. An inner join is an existence filter: ``SELECT name FROM
  singer JOIN singer_in_concert ON ..`` lists the singers who performed, not every singer. The question decides
  whether that filter was asked for: "singers who performed in a concert" names the table and keeps the join,
  "names of the singers" does not, and the pipeline passes :func:`any_join` (replayed on the wide development
  set's synonym wording, 176 questions: +3 right, none lost, against keeping every join that
  :func:`rewrites.join_facts.lossless_join` cannot prove row-preserving). ``lossless_join`` stays for a caller
  that must preserve the rows whatever the question says (``scripts/replay_pruning.py``).

Leaves of the join tree go first, repeatedly, so a chain ``A - B - C`` where only ``A`` is read loses ``C`` and
then ``B``; the FROM table itself is replaced by its neighbour when it is the dangling leaf. At least one read
table stays. Unlike :func:`rewrites.simplify.simplify_sql` this can change the result - that is its purpose -
so it applies only where the question gives no reason for the join. Subqueries are allowed when they are
self-contained (every column inside resolves to the subquery's own tables): "people younger than the average"
written as ``people JOIN wedding .. WHERE age < (SELECT AVG(age) FROM people)`` loses the wedding join, while a
correlated subquery, one reading an outer table, leaves the query alone. Anything else it does not understand
(derived tables, CTEs, set operations at the top, outer joins, USING, unknown qualifiers or columns, a query that
reads no column) is left as written.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import SqlglotError

from rewrites.simplify import source_tables, table_ref

Columns = Mapping[str, Collection[str]]
"""Column names by table name, both lower-cased (``{"singer": {"singer_id", "name"}}``)."""

JoinCheck = Callable[[str, Sequence[str], str, Sequence[str]], bool]
"""``check(kept_table, kept_columns, dropped_table, dropped_columns)``: True when joining ``dropped_table`` on
these column equalities keeps every row of ``kept_table`` exactly once (the join may then go)."""


def any_join(kept: str, kept_columns: Sequence[str], dropped: str, dropped_columns: Sequence[str]) -> bool:
    """A :data:`JoinCheck` that lets every unread join go: for the rescue of an empty result only."""
    return True


def prune_dangling_joins(sql: str, dialect: str, columns: Columns, mentioned: Callable[[str], bool],
                         lossless: JoinCheck) -> str:
    """``sql`` without the inner joins to tables it does not read and the question does not name.

    Args:
        sql: one read-only statement (already guarded).
        dialect: sqlglot dialect name.
        columns: lower-cased table name -> lower-cased column names, for every table the query joins.
        mentioned: ``mentioned(table_name)`` is True when the question names that table; such a table stays.
        lossless: which joins cannot change the rows (see :data:`JoinCheck`); a join it refuses stays.

    Returns:
        The rewritten SQL in ``dialect``, or ``sql`` unchanged (nothing dangling, or a construct this does not
        handle, or a parse failure). Never raises.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        select = _outer_select(tree, columns)
        if select is None or not select.args.get("joins"):
            return sql
        return tree.sql(dialect=dialect) if _prune(select, columns, mentioned, lossless) else sql
    except (SqlglotError, ValueError, KeyError, AttributeError, TypeError):
        return sql


def _prune(select: exp.Select, columns: Columns, mentioned: Callable[[str], bool], lossless: JoinCheck) -> bool:
    """Remove dangling leaf joins from ``select`` in place; True when one was removed."""
    tables = source_tables(select)
    if tables is None or any(not c.args.get("distinct") and not isinstance(c.this, exp.Distinct)
                             for c in select.find_all(exp.Count) if _owner(c) is select):
        return False  # COUNT(*) / COUNT(x) may be counting the joined rows ("semester with most enrolments")
    by_ref = {table_ref(t): t for t in tables}
    if len(by_ref) != len(tables) or any(t.name.lower() not in columns for t in tables):
        return False
    joins = list(select.args.get("joins") or [])
    edges: dict[str, tuple[str, str]] = {}  # ref of a joined table -> (its ref, the other ref)
    keys: dict[str, dict[str, list[str]]] = {}  # ref of a joined table -> ref -> its columns in the ON equalities
    for join in joins:
        found = _equi_pair(join, by_ref)
        if found is None:
            return False
        edges[table_ref(join.this)], keys[table_ref(join.this)] = found
    used = _used_refs(select, by_ref, columns, {id(j.args["on"]) for j in joins})
    if used is None or not used:
        return False
    changed = False
    while True:
        degree = {ref: 0 for ref in by_ref}
        for a, b in edges.values():
            degree[a] += 1
            degree[b] += 1
        leaf = next((r for r in by_ref if degree[r] == 1 and r not in used
                     and not mentioned(by_ref[r].name) and _harmless(r, by_ref, edges, keys, lossless)), None)
        if leaf is None or len(by_ref) == 1:
            return changed
        _remove(select, leaf, by_ref, edges)
        changed = True


def _equi_pair(join: exp.Join, by_ref: Mapping[str, exp.Table]
               ) -> tuple[tuple[str, str], dict[str, list[str]]] | None:
    """``((joined ref, other ref), ref -> its columns)`` for an inner join on column equalities with one table.

    The two column lists follow the order of the equalities; None for any other join.
    """
    on = join.args.get("on")
    if on is None or join.args.get("using") or join.side or join.kind not in ("", "INNER", None):
        return None
    own = table_ref(join.this)
    others: set[str] = set()
    sides: dict[str, list[str]] = {}
    for term in (list(on.flatten()) if isinstance(on, exp.And) else [on]):
        if not isinstance(term, exp.EQ) or not all(isinstance(s, exp.Column) for s in (term.left, term.right)):
            return None
        left, right = term.left, term.right
        assert isinstance(left, exp.Column) and isinstance(right, exp.Column)
        refs = {left.table.lower(), right.table.lower()}
        if own not in refs or "" in refs or not refs <= set(by_ref) or len(refs) != 2:
            return None
        others |= refs - {own}
        for column in (left, right):
            sides.setdefault(column.table.lower(), []).append(column.name)
    return ((own, others.pop()), sides) if len(others) == 1 else None


def _harmless(leaf: str, by_ref: Mapping[str, exp.Table], edges: Mapping[str, tuple[str, str]],
              keys: Mapping[str, dict[str, list[str]]], lossless: JoinCheck) -> bool:
    """Does ``lossless`` accept dropping ``leaf`` from its one neighbour's rows?"""
    join = leaf if leaf in edges else next(r for r, (_own, other) in edges.items() if other == leaf)
    own, other = edges[join]
    kept = other if own == leaf else own
    sides = keys[join]
    return lossless(by_ref[kept].name, sides[kept], by_ref[leaf].name, sides[leaf])


def _used_refs(select: exp.Select, by_ref: Mapping[str, exp.Table], columns: Columns,
               on_ids: set[int]) -> set[str] | None:
    """Refs whose columns the query reads outside join conditions (None: a column cannot be resolved)."""
    used: set[str] = set()
    for column in select.find_all(exp.Column):
        if _owner(column) is not select:
            continue  # inside a self-contained subquery: reads its own tables
        if any(id(node) in on_ids for node in _ancestors(column)):
            continue
        if isinstance(column.this, exp.Star):
            if not column.table:
                return set(by_ref)
            used.add(column.table.lower())
            continue
        if column.table:
            if column.table.lower() not in by_ref:
                return None
            used.add(column.table.lower())
            continue
        owners = {r for r, t in by_ref.items() if column.name.lower() in columns[t.name.lower()]}
        used |= owners  # no owner: an output alias (ORDER BY total) - reads no table
    if any(isinstance(e, exp.Star) for e in select.expressions):
        return set(by_ref)
    return used


def _outer_select(tree: exp.Expr, columns: Columns) -> exp.Select | None:
    """``tree`` when it is one SELECT (no CTE) whose subqueries are all self-contained, else None."""
    if not isinstance(tree, exp.Select) or tree.args.get("with"):
        return None
    for inner in tree.find_all(exp.Select):
        if inner is not tree and _owner(inner) is tree and not _self_contained(inner, columns):
            return None
    return tree


def _self_contained(inner: exp.Select, columns: Columns) -> bool:
    """Does every column of ``inner`` (a subquery, nested ones included) resolve to a table inside it?"""
    tables = list(inner.find_all(exp.Table))
    if not tables or any(t.name.lower() not in columns for t in tables):
        return False
    refs = {table_ref(t) for t in tables} | {t.name.lower() for t in tables}
    names = set().union(*(columns[t.name.lower()] for t in tables))
    aliases = {a.alias.lower() for a in inner.find_all(exp.Alias)}
    for column in inner.find_all(exp.Column):
        if isinstance(column.this, exp.Star):
            ok = not column.table or column.table.lower() in refs
        elif column.table:
            ok = column.table.lower() in refs
        else:
            ok = column.name.lower() in names or column.name.lower() in aliases
        if not ok:
            return False
    return True


def _owner(node: exp.Expr) -> exp.Select | None:
    """The nearest SELECT above ``node`` (None at the root)."""
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Select):
        parent = parent.parent
    return parent


def _ancestors(node: exp.Expr) -> list[exp.Expr]:
    """``node``'s parents up to the root."""
    out = []
    while node.parent is not None:
        node = node.parent
        out.append(node)
    return out


def _remove(select: exp.Select, leaf: str, by_ref: dict[str, exp.Table],
            edges: dict[str, tuple[str, str]]) -> None:
    """Drop ``leaf`` (a dangling leaf); when it is the FROM table, its neighbour's join becomes the FROM."""
    if leaf in edges:  # a joined table: drop its join
        join = by_ref[leaf].parent
        assert join is not None
        join.pop()
        del edges[leaf]
    else:  # the FROM table: exactly one join connects to it
        ref = next(r for r, (own, other) in edges.items() if other == leaf)
        table = by_ref[ref]
        join = table.parent
        from_ = select.args.get("from_") or select.args.get("from")
        assert join is not None and from_ is not None
        join.pop()
        new = table.copy()
        from_.set("this", new)
        by_ref[ref] = new
        del edges[ref]
    del by_ref[leaf]
