"""Conditions in words: comparisons, IN, BETWEEN, LIKE, IS NULL, EXISTS, NOT, AND/OR, and date periods.

:class:`ConditionPhrases` is the condition half of :class:`tools.sql_phrases.Phraser` ("country is 'Brazil'",
"amount greater than 100", "name starts with 'A'", "order_date during 2024 (from 2024-01-01 to 2024-12-31)").
"""

from __future__ import annotations

import datetime as dt
import re
from abc import ABC, abstractmethod

from sqlglot import exp

COMPARISONS: dict[type[exp.Expr], tuple[str, str]] = {
    exp.EQ: ("is", "is"), exp.NullSafeEQ: ("is", "is"), exp.NEQ: ("is not", "is not"),
    exp.GT: ("greater than", "after"), exp.GTE: ("at least", "on or after"),
    exp.LT: ("less than", "before"), exp.LTE: ("at most", "on or before"),
}
"""Comparison -> (words for numbers and text, words when the value is a date)."""
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}$")
"""A ``YYYY-MM-DD`` date as text."""


def as_date(node: exp.Expr | None) -> dt.date | None:
    """The date of a ``'YYYY-MM-DD'`` string literal, else None."""
    if isinstance(node, exp.Cast):
        node = node.this
    if isinstance(node, exp.Literal) and node.is_string and DATE_TEXT.match(node.this):
        try:
            return dt.date.fromisoformat(node.this)
        except ValueError:
            return None
    return None


def period(low: dt.date, high: dt.date, inclusive: bool) -> str | None:
    """The calendar year, quarter or month exactly covered by ``low`` .. ``high``, e.g. "March 2024"; or None."""
    end = high if inclusive else high - dt.timedelta(days=1)
    if low.day != 1 or end < low or (end + dt.timedelta(days=1)).day != 1:
        return None
    months = (end.year - low.year) * 12 + end.month - low.month + 1
    if months == 12 and low.month == 1:
        return str(low.year)
    if months == 3 and low.month % 3 == 1:
        return f"Q{low.month // 3 + 1} {low.year}"
    return f"{MONTHS[low.month - 1]} {low.year}" if months == 1 else None


def set_word(node: exp.SetOperation) -> str:
    """How a set operation adds its right side: "together with (union)", "only those also in (intersect)"..."""
    if isinstance(node, exp.Union):
        return "together with (union)" if node.args.get("distinct", True) else "together with all (union all)"
    return "only those also in (intersect)" if isinstance(node, exp.Intersect) else "except those in (except)"


class ConditionPhrases(ABC):
    """Condition phrasing; the value side (:meth:`expr`, :meth:`summary`, :meth:`generic`) is abstract.

    :class:`tools.sql_phrases.Phraser` implements it.
    """

    dialect: str

    @abstractmethod
    def expr(self, node: exp.Expr | None) -> str:
        """Words for a value expression (see :meth:`tools.sql_phrases.Phraser.expr`)."""

    @abstractmethod
    def summary(self, query: exp.Expr | None) -> str:
        """One phrase for a sub-select (see :meth:`tools.sql_phrases.Phraser.summary`)."""

    @abstractmethod
    def generic(self, node: exp.Expr) -> str:
        """"a computed value from ..." (see :meth:`tools.sql_phrases.Phraser.generic`)."""

    def literal(self, node: exp.Expr | None) -> exp.Expr | None:
        """``node``, except that in SQLite a double-quoted bare name (``"Brazil"``) is the string it falls back to."""
        if (self.dialect == "sqlite" and isinstance(node, exp.Column) and not node.table
                and node.this.args.get("quoted")):
            return exp.Literal.string(node.name)
        return node

    def value(self, node: exp.Expr | None) -> str:
        """Words for a compared value (see :meth:`literal`)."""
        return self.expr(self.literal(node))

    def condition(self, node: exp.Expr | None) -> str:
        """Words for a WHERE/HAVING/ON condition, e.g. "amount greater than 100", "name starts with 'A'"."""
        if node is None:
            return "a computed value"
        if isinstance(node, exp.Paren):
            return self.condition(node.this)
        if isinstance(node, exp.Connector):
            word = " and " if isinstance(node, exp.And) else " or "
            parts = [f"({self.condition(p)})" if isinstance(node, exp.Or) and isinstance(p.unnest(), exp.And)
                     else self.condition(p) for p in node.flatten()]
            return "(" + word.join(parts) + ")" if isinstance(node, exp.Or) else word.join(parts)
        if isinstance(node, exp.Not):
            inner = node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
            if isinstance(inner, exp.In | exp.Like | exp.ILike | exp.Is | exp.Exists | exp.Between):
                return self._predicate(inner, negate=True)
            return f"not {self.condition(inner)}"
        if isinstance(node, exp.Predicate):
            return self._predicate(node, negate=bool(node.args.get("negate")))
        return self.expr(node)

    def _predicate(self, node: exp.Expr, negate: bool) -> str:
        left, right = node.this, node.args.get("expression")
        if type(node) in COMPARISONS:
            words = COMPARISONS[type(node)][1 if as_date(self.literal(right)) else 0]
            sides = self.expr(left), self.value(right)
            if (isinstance(left, exp.Column) and isinstance(right, exp.Column) and left.table and right.table
                    and left.table != right.table and sides[0].lower() == sides[1].lower()):
                sides = f"{left.table}.{sides[0]}", f"{right.table}.{sides[1]}"  # a correlated sub-select
            return f"{sides[0]} {'not ' if negate else ''}{words} {sides[1]}"
        if isinstance(node, exp.Is):
            what = "missing" if isinstance(right, exp.Null) else self.value(right)
            return f"{self.expr(left)} is {'not ' if negate else ''}{what}"
        if isinstance(node, exp.In):
            query = node.args.get("query")
            if query is not None:
                return f"{self.expr(left)} is {'not ' if negate else ''}among {self.expr(query)}"
            options = node.expressions
            head = "not " if negate else ""
            if len(options) == 1:
                return f"{self.expr(left)} is {head}{self.value(options[0])}"
            return f"{self.expr(left)} is {head}one of {', '.join(self.value(o) for o in options)}"
        if isinstance(node, exp.Between):
            return self._between(node, negate)
        if isinstance(node, exp.Like | exp.ILike):
            return f"{self.expr(left)} {self._pattern(right, negate)}"
        if isinstance(node, exp.Exists):
            return f"there is {'no' if negate else 'some'} {self.summary(node.this)}"
        if isinstance(node, exp.Any | exp.All):
            return self.expr(node)
        return ("not " if negate else "") + self.generic(node)

    def _between(self, node: exp.Between, negate: bool) -> str:
        low, high = node.args.get("low"), node.args.get("high")
        text = f"{self.expr(node.this)} {'not ' if negate else ''}between {self.value(low)} and {self.value(high)}"
        dates = as_date(self.literal(low)), as_date(self.literal(high))
        covered = period(dates[0], dates[1], True) if dates[0] and dates[1] and not negate else None
        return self.during(node.this, covered, self.value(low), self.value(high)) if covered else text

    def during(self, column: exp.Expr, covered: str, low: str, high: str, before: bool = False) -> str:
        """"order_date during 2024 (from 2024-01-01 to 2024-12-31)"; ``before``: the end is excluded."""
        return f"{self.expr(column)} during {covered} (from {low} to {'before ' if before else ''}{high})"

    def _pattern(self, node: exp.Expr | None, negate: bool) -> str:
        """LIKE pattern in words: contains / starts with / ends with / is / matches the pattern."""
        lit = self.literal(node)
        raw = lit.this if isinstance(lit, exp.Literal) and lit.is_string else None
        inner = raw.strip("%") if raw is not None else ""
        if raw is None or not inner or "%" in inner or "_" in inner:
            return f"{'does not match' if negate else 'matches'} the pattern {self.value(node)}"
        verb = {(True, True): "contain", (False, True): "start with", (True, False): "end with",
                (False, False): "equal"}[(raw.startswith("%"), raw.endswith("%"))]
        if negate:
            return f"does not {verb} '{inner}'"
        return f"{ {'contain': 'contains', 'start with': 'starts with', 'end with': 'ends with', 'equal': 'is'}[verb]} '{inner}'"
