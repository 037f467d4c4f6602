"""As-of dates: a filter on a day with no rows becomes "the last day on or before it" (weekends, holidays).

"Microsoft's close on June 30, 2024" is a Sunday: ``TRD_DT = '2024-06-30'`` returns nothing, while an analyst
means the last close on or before that day (the "as of" reading of time-series data; a price, rate or level is
carried forward to days without a row). :func:`as_of_dates` rewrites each outer equality of a date column with
an ISO date literal into

    col = (SELECT MAX(x.col) FROM table AS x WHERE x.col <= 'date' AND x.k = ref.k ...)

(within :data:`CARRY_FORWARD_DAYS` days before it), where ``k`` are the other primary-key columns of the table (the series the row belongs to: ``EQ_ID`` for daily
prices, the currency pair for FX rates); without a primary key that contains the date column the latest day on
or before the date over the whole table is used. Used only on a candidate whose result came back empty (or one
row of NULL/0), before any new model call, and only for a date on which the table has no row at all: "0 orders on
2024-06-30" over a day that has rows is a true zero and keeps its date. The answer then shows the date it was
picked from (the ``picked_date`` answer convention). Never raises.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence

from sqlglot import exp

from database.connection import Database
from database.sql_sources import parse_select, tables

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CARRY_FORWARD_DAYS = 10
"""How far back a value is carried forward: a date after a longer gap (or after the data ends) stays empty."""


def as_of_dates(sql: str, dialect: str, primary_keys: Mapping[str, Sequence[str]] | None = None,
                db: Database | None = None) -> str | None:
    """``sql`` with its outer ``date_column = 'YYYY-MM-DD'`` filters read "as of" that date; None when it has none.

    Args:
        sql: one read-only query (already guarded).
        dialect: sqlglot dialect name.
        primary_keys: lower-cased table name -> its primary-key columns (the series keys of a dated table).
        db: the database the query runs on; with it, only a date on which the table has no row at all is read
            as of (:func:`date_absent`), so a legitimate 0 or NULL over existing rows keeps its date. Without it
            every such filter is rewritten (for replays on SQL alone).
    """
    tree = parse_select(sql, dialect)
    if tree is None or tree.args.get("where") is None:
        return None
    sources = tables(tree)
    keys = {t.lower(): list(cols) for t, cols in (primary_keys or {}).items()}
    changed = False
    for eq in list(tree.args["where"].find_all(exp.EQ)):
        if eq.find_ancestor(exp.Select) is not tree:
            continue
        column, literal = eq.this, eq.expression
        if isinstance(literal, exp.Column):
            column, literal = literal, column
        if not (isinstance(column, exp.Column) and isinstance(literal, exp.Literal) and literal.is_string
                and ISO_DATE.match(literal.this)):
            continue
        try:
            dt.date.fromisoformat(literal.this)
        except ValueError:
            continue
        source = _source_of(column, sources)
        if source is None or (db is not None and not date_absent(db, source, column, literal.this)):
            continue
        eq.set("expression", _last_on_or_before(column, source, literal.this, keys.get(source.name.lower(), [])))
        eq.set("this", column.copy())
        changed = True
    return tree.sql(dialect=dialect) if changed else None


def date_absent(db: Database, source: exp.Table, column: exp.Column, day: str) -> bool:
    """True when ``source`` has no row whose ``column`` equals ``day`` (False when it has one or the probe fails).

    One guarded ``SELECT 1 ... LIMIT 1``, with the table spelled as the query spells it.
    """
    bare = exp.Table(this=source.this.copy(), db=source.args["db"].copy() if source.args.get("db") else None)
    probe = exp.select("1").from_(bare).where(
        exp.EQ(this=exp.Column(this=column.this.copy()), expression=exp.Literal.string(day))).limit(1)
    res = db.run_query(probe.sql(dialect=db.dialect), row_cap=1)
    return res.ok and not res.rows


_NOT_SERIES = (r"(?!(?:days?|dates?|weeks?|months?|quarters?|years?|times?|rows?|records?|values?|prices?|closes?|"
               r"rates?|figures?|numbers?|amounts?|levels?|data|results?|columns?|fields?|the|of|one)\b)")
PER_SERIES = re.compile(
    rf"\b(?:(?:every|each|per)\s+{_NOT_SERIES}[^\W\d_]+|(?:for|of|across)\s+all\s+(?:of\s+)?(?:the\s+)?"
    rf"{_NOT_SERIES}[^\W\d_]+)", re.IGNORECASE)
"""An explicit per-series phrase: "for every stock", "each currency pair", "per index", "of all stocks". "all"
alone ("show all prices on the latest date", "list all the latest prices") is not one, nor a phrase over time
units or measures ("every day", "for all prices")."""


def latest_per_series(sql: str, dialect: str, question: str,
                      primary_keys: Mapping[str, Sequence[str]] | None = None) -> str | None:
    """"Latest close for every stock": ``ORDER BY d DESC LIMIT 1`` becomes each series' own latest row.

    When ``question`` has an explicit per-series phrase (:data:`PER_SERIES`) and the outermost query (no aggregate, no
    GROUP BY) keeps one row by ``ORDER BY date DESC LIMIT 1`` over a table whose primary key is (series
    columns..., date), the ORDER BY and LIMIT are replaced by ``d = (SELECT MAX(x.d) FROM table AS x WHERE
    x.k = ref.k ...)`` - the greatest-n-per-group pattern a small model rarely writes. None when it does not
    apply. Never raises.
    """
    if not PER_SERIES.search(question):
        return None
    tree = parse_select(sql, dialect)
    if tree is None or tree.args.get("group") is not None or any(
            agg.find_ancestor(exp.Window, exp.Select) is tree for p in tree.expressions for agg in p.find_all(exp.AggFunc)):
        return None
    order, limit = tree.args.get("order"), tree.args.get("limit")
    if order is None or limit is None or len(order.expressions) != 1 or not order.expressions[0].args.get("desc") \
            or limit.expression is None or str(limit.expression) != "1":
        return None
    column = order.expressions[0].this
    source = _source_of(column, tables(tree)) if isinstance(column, exp.Column) else None
    keys = {t.lower(): list(cols) for t, cols in (primary_keys or {}).items()}
    key = keys.get(source.name.lower(), []) if source is not None else []
    if source is None or not isinstance(column, exp.Column) or column.name.lower() not in {k.lower() for k in key} \
            or len(key) < 2:
        return None
    inner = "latest"
    conditions = [exp.EQ(this=exp.column(k, table=inner), expression=exp.column(k, table=source.alias_or_name))
                  for k in key if k.lower() != column.name.lower()]
    table = exp.Table(this=source.this.copy(), db=source.args.get("db"), alias=exp.TableAlias(this=exp.to_identifier(inner)))
    latest = exp.select(exp.Max(this=exp.column(column.name, table=inner))).from_(table).where(exp.and_(*conditions))
    tree.set("order", None)
    tree.set("limit", None)
    tree.where(exp.EQ(this=column.copy(), expression=latest.subquery()), copy=False)
    return tree.sql(dialect=dialect)


def _source_of(column: exp.Column, sources: list[exp.Table]) -> exp.Table | None:
    """The table ``column`` reads: by its qualifier, or the only table when it has none."""
    if column.table:
        return next((t for t in sources if t.alias_or_name.lower() == column.table.lower()), None)
    return sources[0] if len(sources) == 1 else None


def _last_on_or_before(column: exp.Column, source: exp.Table, day: str, key: list[str]) -> exp.Subquery:
    """``(SELECT MAX(x.col) FROM table AS x WHERE x.col <= 'day' AND x.col > 'day - 10' [AND x.k = ref.k ...])``."""
    name = column.name
    inner = "as_of"
    earliest = (dt.date.fromisoformat(day) - dt.timedelta(days=CARRY_FORWARD_DAYS)).isoformat()
    conditions: list[exp.Expression] = [
        exp.LTE(this=exp.column(name, table=inner), expression=exp.Literal.string(day)),
        exp.GT(this=exp.column(name, table=inner), expression=exp.Literal.string(earliest))]
    ref = source.alias_or_name
    conditions += [exp.EQ(this=exp.column(k, table=inner), expression=exp.column(k, table=ref))
                   for k in key if k.lower() != name.lower()]
    table = exp.Table(this=source.this.copy(), db=source.args.get("db"), alias=exp.TableAlias(this=exp.to_identifier(inner)))
    query = exp.select(exp.Max(this=exp.column(name, table=inner))).from_(table).where(exp.and_(*conditions))
    return query.subquery()
