"""The rewrite steps in one shape: ``step(sql, inputs) -> str | None`` (None or ``sql``: nothing to change).

Each adapter takes what its transform needs from :class:`rewrites.inputs.RewriteInputs`; the runner has already
checked the step's needs and switch (:mod:`rewrites.pipeline`). No adapter raises.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from rewrites.age_order import fix_age_order
from rewrites.answer_limits import drop_rank_figure, drop_unasked_limit, order_as_asked
from rewrites.answer_shape import apply_conventions
from rewrites.anti_joins import open_anti_join
from rewrites.as_of import as_of_dates, latest_per_series
from rewrites.code_filters import fix_code_filters
from rewrites.contradictions import split_contradiction
from rewrites.dangling import any_join, prune_dangling_joins
from rewrites.date_parts import fix_date_parts
from rewrites.entity_swap import swap_copied_entities
from rewrites.inputs import RewriteInputs
from rewrites.join_conditions import complete_join_conditions
from rewrites.join_keys import fix_join_keys
from rewrites.literals import all_filters_named, drop_unasked_filters, fix_literals, named_in
from rewrites.missing_join import add_missing_joins, join_column_owners
from rewrites.negated_joins import fix_negated_joins
from rewrites.period_dates import align_period_dates
from rewrites.qualify import fix_qualifiers
from rewrites.quote_names import quote_names
from rewrites.rate_direction import fix_rate_direction
from rewrites.respell import respell_columns, respell_tables
from rewrites.set_keys import fix_set_keys
from rewrites.simplify import simplify_sql
from rewrites.table_swap import swap_lacking_tables
from rewrites.window_scope import lift_window_filters


def quoted_names(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.quote_names.quote_names` with the catalog's table and column names (declared case)."""
    if inputs.catalog is None:
        return None
    names = [*inputs.catalog.names, *(c for cols in inputs.catalog.columns.values() for c in cols)]
    return quote_names(sql, names, inputs.dialect)


def respelled_tables(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.respell.respell_tables` with the catalog's table names (declared case)."""
    if inputs.catalog is None or not inputs.catalog.columns:
        return None
    return respell_tables(sql, inputs.dialect, list(inputs.catalog.columns))


def respelled(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.respell.respell_columns` with the catalog's column lists (declared case)."""
    if inputs.catalog is None:
        return None
    columns = {t.lower(): list(cols) for t, cols in inputs.catalog.columns.items() if cols}
    return respell_columns(sql, inputs.dialect, columns) if columns else None


def qualifiers(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.qualify.fix_qualifiers` with the catalog's column lists and foreign keys."""
    columns = inputs.lower_columns()
    graph = inputs.catalog.graph if inputs.catalog is not None else None
    return fix_qualifiers(sql, inputs.dialect, columns, graph) if columns else None


def missing_joins(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.missing_join.add_missing_joins` along the catalog's foreign-key graph."""
    return add_missing_joins(sql, inputs.dialect, inputs.catalog.graph) if inputs.catalog is not None else None


def column_owners(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.missing_join.join_column_owners` with the catalog's columns and foreign keys."""
    columns = inputs.lower_columns()
    if not columns or inputs.catalog is None:
        return None
    return join_column_owners(sql, inputs.dialect, inputs.catalog.graph, columns)


def linked_owners(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.missing_join.join_column_owners` through one linking table (``through_links``)."""
    columns = inputs.lower_columns()
    if not columns or inputs.catalog is None:
        return None
    return join_column_owners(sql, inputs.dialect, inputs.catalog.graph, columns, through_links=True)


def lacking_tables(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.table_swap.swap_lacking_tables` with the catalog's columns and declared table names."""
    columns = inputs.lower_columns()
    if not columns or inputs.catalog is None:
        return None
    return swap_lacking_tables(sql, inputs.dialect, columns, list(inputs.catalog.columns))


def join_conditions(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.join_conditions.complete_join_conditions` with the catalog's columns and foreign keys."""
    columns = inputs.lower_columns()
    graph = inputs.catalog.graph if inputs.catalog is not None else None
    return complete_join_conditions(sql, inputs.dialect, graph, columns) if columns else None


def join_keys(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.join_keys.fix_join_keys` along the catalog's foreign keys."""
    return fix_join_keys(sql, inputs.dialect, inputs.catalog.graph) if inputs.catalog is not None else None


def date_parts(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.date_parts.fix_date_parts`, probing the database, resolving columns with the catalog."""
    return fix_date_parts(sql, inputs.dialect, inputs.db, inputs.lower_columns()) if inputs.db is not None else None


def set_keys(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.set_keys.fix_set_keys` with the catalog's columns and foreign keys."""
    columns = inputs.lower_columns()
    graph = inputs.catalog.graph if inputs.catalog is not None else None
    return fix_set_keys(sql, inputs.dialect, columns, graph) if columns else None


def negated_joins(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.negated_joins.fix_negated_joins` with the question, the catalog's columns and keys."""
    columns = inputs.lower_columns()
    graph = inputs.catalog.graph if inputs.catalog is not None else None
    keys = inputs.primary_keys() or {}
    return fix_negated_joins(sql, inputs.dialect, inputs.question, columns, graph, keys) if columns else None


def period_dates(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.period_dates.align_period_dates` on the question's one closed period."""
    return align_period_dates(sql, inputs.dialect, inputs.question)


def rate_direction(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.rate_direction.fix_rate_direction` with the knowledge file's rate declarations."""
    rates = inputs.knowledge.rates if inputs.knowledge is not None else ()
    return fix_rate_direction(sql, inputs.dialect, rates) if rates else None


def unnamed_codes(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.code_filters.fix_code_filters` with the knowledge file's code bindings."""
    know = inputs.knowledge
    if know is None or not know.codes or know.matcher is None:
        return None
    return fix_code_filters(sql, inputs.dialect, inputs.question, know.codes, know.matcher)


def prune(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.dangling.prune_dangling_joins` of unread joins to tables the question does not name."""
    columns = inputs.lower_columns()
    if not columns or inputs.names_table is None:
        return None
    return prune_dangling_joins(sql, inputs.dialect, columns, inputs.names_table, any_join)


def simplify(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.simplify.simplify_sql` (self-joins on the catalog's primary keys, when there is one)."""
    return simplify_sql(sql, inputs.dialect, inputs.primary_keys())


def latest(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.as_of.latest_per_series` on the catalog's primary keys."""
    return latest_per_series(sql, inputs.dialect, inputs.question, inputs.primary_keys())


def unasked_limit(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.answer_limits.drop_unasked_limit` on the question."""
    return drop_unasked_limit(sql, inputs.dialect, inputs.question)


def order_asked(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.answer_limits.order_as_asked` on the question."""
    return order_as_asked(sql, inputs.dialect, inputs.question)


def age_order(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.age_order.fix_age_order` on the question."""
    return fix_age_order(sql, inputs.dialect, inputs.question)


def rank_figure(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.answer_limits.drop_rank_figure` on the question."""
    return drop_rank_figure(sql, inputs.dialect, inputs.question)


def windows(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.window_scope.lift_window_filters`."""
    return lift_window_filters(sql, inputs.dialect)


def conventions(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.answer_shape.apply_conventions` with the knowledge file's presentation records."""
    shown = list(inputs.knowledge.conventions) if inputs.knowledge is not None else []
    return apply_conventions(sql, inputs.dialect, shown, inputs.primary_keys()) if shown else None


def contradictions(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.contradictions.split_contradiction` for a query that returned nothing.

    Not for one row of NULL/0: an aggregate over the contradiction is not the "both" reading.
    """
    return None if inputs.got_rows else split_contradiction(sql, inputs.dialect)


def anti_joins(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.anti_joins.open_anti_join` (also after one row of NULL/0: a count of nothing)."""
    return open_anti_join(sql, inputs.dialect, inputs.primary_keys())


def literals(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.literals.fix_literals`: filter values respelled as the database stores them."""
    return fix_literals(inputs.db, sql) if inputs.db is not None else None


def as_of(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.as_of.as_of_dates` for dates the table has no row on."""
    return as_of_dates(sql, inputs.dialect, inputs.primary_keys() or {}, inputs.db)


def _named(inputs: RewriteInputs) -> Callable[[str], bool]:
    """``named(value)``: does the question (or one of its value matches) name ``value``?"""
    return functools.partial(named_in, inputs.question, matches=list(inputs.matches))


def relax(sql: str, inputs: RewriteInputs) -> str | None:
    """The query without its inner joins to tables it never reads, unless the question names every filter value.

    A query whose every filter value the question names asks exactly what was asked: its empty result stands.
    """
    columns = inputs.lower_columns()
    if not columns or inputs.got_rows or all_filters_named(sql, inputs.dialect, _named(inputs)):
        return None
    return prune_dangling_joins(sql, inputs.dialect, columns, lambda _table: False, any_join)


def unasked(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.literals.drop_unasked_filters`, unless the question names every filter value."""
    named = _named(inputs)
    if inputs.got_rows or all_filters_named(sql, inputs.dialect, named):
        return None
    return drop_unasked_filters(sql, inputs.dialect, named)


def entities(sql: str, inputs: RewriteInputs) -> str | None:
    """:func:`rewrites.entity_swap.swap_copied_entities` with the question's value matches."""
    return swap_copied_entities(sql, inputs.dialect, inputs.question, list(inputs.matches))
