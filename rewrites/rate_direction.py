"""A conversion rate applied in the wrong direction, turned around (dimensional check of rate arithmetic).

The demo's FX table stores ``FX_RT`` = units of ``QUOTE_CCY`` for one ``BASE_CCY`` (USD). Asked "Toyota's
closing price on the last trading day in US dollars", the 1.5B model joins the rate of Toyota's own currency,
``f.QUOTE_CCY = m.TRD_CCY``, and writes ``p.PX_LST * f.FX_RT``: yen times yen-per-dollar, a number in no
currency. An amount of a row converted with the rate of that row's own currency (the quote currency bound to a
column, not to a literal) can only be divided by it: amount / (quote per base) = base. :func:`fix_rate_direction`
turns each such ``amount * rate`` (``rate * amount``, ``COALESCE(rate, 1)`` included) into ``amount / rate``.
Multiplications by a rate whose quote is a literal (``QUOTE_CCY = 'EUR'``: dollars to euros) are right and kept.

The rates come from knowledge: a metric record's ``rate`` field, ``FX_RT_D.FX_RT = FX_RT_D.QUOTE_CCY per
FX_RT_D.BASE_CCY`` (:mod:`knowledge.records`); without one nothing changes. Before the query runs, no model call;
never raises. The knowledge binds the unit of a metric (BAR-SQL, seed 001, binds metrics to their mandatory
constraints); this checks the arithmetic against it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from database.sql_sources import parse_select
from database.sql_sources import tables as plain_tables
from knowledge.records import RATE, KnowledgeRecord


@dataclass(frozen=True)
class RateSpec:
    """``table.rate`` is units of ``table.quote`` per one ``table.base`` (lower-cased names)."""

    table: str
    rate: str
    quote: str
    base: str


def rate_specs(records: Sequence[KnowledgeRecord]) -> list[RateSpec]:
    """The rate declarations of the approved records of ``records``."""
    specs = []
    for record in records:
        found = RATE.match(record.rate or "") if record.status == "approved" else None
        if found:
            specs.append(RateSpec(found["table"].lower(), found["rate"].lower(), found["quote"].lower(),
                                  found["base"].lower()))
    return specs


def fix_rate_direction(sql: str, dialect: str, specs: Sequence[RateSpec]) -> str | None:
    """``sql`` with rates of a row's own currency dividing instead of multiplying; None when unchanged."""
    if not specs:
        return None
    tree = parse_select(sql, dialect)
    if tree is None:
        return None
    changed = False
    for select in list(tree.find_all(exp.Select)):
        own = _own_currency_rates(select, specs)
        if not own:
            continue
        for mul in [m for m in select.find_all(exp.Mul) if m.find_ancestor(exp.Select) is select]:
            for rate, amount in ((mul.expression, mul.this), (mul.this, mul.expression)):
                if _is_rate(rate, own):
                    mul.replace(_divide(amount.copy(), rate.copy(), dialect))
                    changed = True
                    break
    return tree.sql(dialect=dialect) if changed else None


@functools.cache
def _division_flags(dialect: str) -> tuple[object, object]:
    """The ``typed`` and ``safe`` flags of ``a / b`` as ``dialect`` parses it."""
    proto = sqlglot.parse_one("SELECT a / b", read=dialect).expressions[0]
    return proto.args.get("typed"), proto.args.get("safe")


def _divide(amount: exp.Expr, rate: exp.Expr, dialect: str) -> exp.Div:
    """``amount / rate`` with the dialect's own division flags (so no cast is written for it)."""
    typed, safe = _division_flags(dialect)
    return exp.Div(this=amount, expression=rate, typed=typed, safe=safe)


def _own_currency_rates(select: exp.Select, specs: Sequence[RateSpec]) -> dict[str, RateSpec]:
    """Lower-cased alias -> spec, for each rate table of ``select`` whose quote is equated with another column."""
    found: dict[str, RateSpec] = {}
    aliases = {t.alias_or_name.lower(): t.name.lower() for t in plain_tables(select)}
    for eq in select.find_all(exp.EQ):
        if eq.find_ancestor(exp.Select) is not select:
            continue
        for side, other in ((eq.this, eq.expression), (eq.expression, eq.this)):
            if not (isinstance(side, exp.Column) and isinstance(other, exp.Column)):
                continue
            alias = side.table.lower() if side.table else _only(aliases)
            table = aliases.get(alias or "")
            spec = next((s for s in specs if s.table == table and s.quote == side.name.lower()), None)
            other_alias = other.table.lower() if other.table else None
            if other_alias is not None and aliases.get(other_alias) == table:
                continue  # two rates of one table matched on their currency: a cross, not a row's own currency
            if spec is not None and alias is not None and other_alias != alias:
                found[alias] = spec
    return found


def _only(aliases: dict[str, str]) -> str | None:
    return next(iter(aliases)) if len(aliases) == 1 else None


def _is_rate(node: exp.Expr, own: dict[str, RateSpec]) -> bool:
    """Is ``node`` ``alias.RATE`` (or ``COALESCE(alias.RATE, ...)``) of a rate in ``own``?"""
    if isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Coalesce):
        node = node.this
    if not isinstance(node, exp.Column):
        return False
    alias = node.table.lower() if node.table else (next(iter(own)) if len(own) == 1 else "")
    spec = own.get(alias)
    return spec is not None and node.name.lower() == spec.rate
