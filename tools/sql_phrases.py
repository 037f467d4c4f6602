"""Plain-language phrases for the parts of a parsed SQL statement (sqlglot trees), without an LLM.

:class:`Phraser` turns expressions ("sum of amount"), conditions ("country is 'Brazil'", "order_date during
2024 (from 2024-01-01 to 2024-12-31)"), joins ("customers with their invoices (matching customer_id)") and
whole sub-selects ("stadium_id of concert where year is 2014") into words; :mod:`tools.sql_account` assembles
them into the account of one statement. Every name a phrase mentions is a name of the SQL (a column, table,
alias or function as written) or a fixed English word; constructs it does not know become "a computed value
from ..." followed by the columns, values and aggregates inside them, so nothing in the SQL goes unmentioned.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from sqlglot import exp

from tools.sql_conditions import COMPARISONS, DATE_TEXT, ConditionPhrases, set_word

ARITHMETIC: dict[type[exp.Expr], str] = {
    exp.Add: "plus", exp.Sub: "minus", exp.Mul: "times", exp.Div: "divided by", exp.Mod: "modulo",
    exp.DPipe: "joined to"}
AGGREGATES: dict[type[exp.Expr], str] = {
    exp.Sum: "sum", exp.Avg: "average", exp.Min: "minimum", exp.Max: "maximum"}
RANKINGS: dict[type[exp.Expr], str] = {
    exp.RowNumber: "row number", exp.Rank: "rank", exp.DenseRank: "dense rank", exp.Lag: "previous value",
    exp.Lead: "next value", exp.FirstValue: "first value", exp.LastValue: "last value"}
DATE_PARTS = {"%Y": "year", "%m": "month", "%d": "day", "%Y-%m": "year and month", "%H": "hour", "%W": "week"}
_LEAVES = (exp.Column, exp.Literal, exp.AggFunc, exp.Subquery, exp.Query, exp.Window, exp.Star)


def _norm(node: exp.Expr) -> str:
    """Comparable text of an expression: table qualifiers dropped, lower case, single spaces ("" if unprintable)."""
    try:
        bare = node.copy().transform(lambda n: exp.column(n.name) if isinstance(n, exp.Column) and n.table else n)
        return " ".join(bare.sql().lower().split())
    except Exception:  # an expression sqlglot cannot print matches no measure
        return ""


class Phraser(ConditionPhrases):
    """Renders the expressions, conditions and sub-selects of one statement in words.

    ``sql`` is the statement's text (function names are only used when they occur in it), ``dialect`` its
    sqlglot dialect, ``measures`` maps a SQL expression (e.g. ``SUM(invoices.total)``) to a business name;
    an expression of the statement that equals one (qualifiers and case ignored) is shown as
    "<name> (<its phrase>)". Expressions of ``measures`` that do not parse are ignored.
    """

    def __init__(self, sql: str, dialect: str, measures: Mapping[str, str] | None = None) -> None:
        """Keep the statement's words and the normalised ``measures``."""
        self.dialect, self.words = dialect, set(re.findall(r"[a-z_][a-z0-9_]*", sql.lower()))
        self.summarize: Callable[[exp.Select], str] | None = None
        self.measures: dict[str, str] = {}
        for text, name in (measures or {}).items():
            try:
                self.measures[_norm(exp.maybe_parse(text, dialect=dialect))] = name
            except Exception:  # a malformed knowledge expression names nothing
                continue

    # -- expressions -------------------------------------------------------------------------------------
    def expr(self, node: exp.Expr | None) -> str:
        """Words for a value expression (a column, literal, aggregate, arithmetic, function, sub-select...)."""
        if node is None:
            return "a computed value"
        text = self._expr(node)
        if self.measures and not isinstance(node, exp.Column | exp.Literal):
            name = self.measures.get(_norm(node) or "-")
            if name:
                return f"{name} ({text})"
        return text

    def _expr(self, node: exp.Expr) -> str:
        if isinstance(node, exp.Alias | exp.Paren | exp.Cast | exp.TryCast | exp.Lower | exp.Upper | exp.Trim):
            return self.expr(node.this)
        if isinstance(node, exp.Column):
            return f"all columns of {node.table}" if isinstance(node.this, exp.Star) else node.name
        if isinstance(node, exp.Star):
            return "all columns"
        if isinstance(node, exp.Literal):
            return node.this if not node.is_string or DATE_TEXT.match(node.this) else f"'{node.this}'"
        if isinstance(node, exp.JSONPath):
            return node.sql(dialect=self.dialect)
        if isinstance(node, exp.Identifier | exp.Var):
            return node.name if node.name.lower() in self.words else "a computed value"
        if isinstance(node, exp.Placeholder | exp.Parameter):
            return "a parameter"
        if isinstance(node, exp.Filter):
            where = node.args.get("expression")
            return f"{self.expr(node.this)} where {self.condition(where.this if where else None)}"
        if isinstance(node, exp.Interval):
            unit = node.args.get("unit")
            amount = node.this.name if isinstance(node.this, exp.Literal) else self.expr(node.this)
            return f"{amount} {self.expr(unit).lower()}" if unit is not None else amount
        if isinstance(node, exp.TimestampTrunc | exp.DateTrunc | exp.TimeTrunc) and node.args.get("unit"):
            return f"{self.expr(node.args['unit']).lower()} of {self.expr(node.this)}"
        if isinstance(node, exp.Extract):
            return f"{self.expr(node.this).lower()} of {self.expr(node.expression)}"
        if isinstance(node, exp.Rollup | exp.Cube | exp.GroupingSets):
            return f"{self._list(node.expressions)} with subtotals"
        if isinstance(node, exp.Null):
            return "null"
        if isinstance(node, exp.Boolean):
            return "true" if node.this else "false"
        if isinstance(node, exp.Neg):
            return f"-{self.expr(node.this)}"
        if isinstance(node, exp.Count):
            arg = node.this
            if arg is None or isinstance(arg, exp.Star):
                return "count of rows"
            if isinstance(arg, exp.Distinct):
                return f"number of distinct {self._list(arg.expressions)}"
            return f"count of {self.expr(arg)}"
        if type(node) in AGGREGATES:
            arg = node.this
            inner = (f"distinct {self._list(arg.expressions)}" if isinstance(arg, exp.Distinct) else self.expr(arg))
            return f"{AGGREGATES[type(node)]} of {inner}"
        if type(node) in ARITHMETIC:
            return f"{self.expr(node.this)} {ARITHMETIC[type(node)]} {self.expr(node.expression)}"
        if isinstance(node, exp.Window):
            return self._window(node)
        if type(node) in RANKINGS:
            args = [a for a in (node.this,) if a is not None]
            return RANKINGS[type(node)] + (f" of {self._list(args)}" if args else "")
        if isinstance(node, exp.Subquery | exp.Query):
            return f"the {self.summary(node.this if isinstance(node, exp.Subquery) else node)}"
        if isinstance(node, exp.Any | exp.All):
            word = "any" if isinstance(node, exp.Any) else "all"
            return f"{word} of {self.expr(node.this)}"
        if isinstance(node, exp.Tuple):
            return f"({self._list(node.expressions)})"
        if type(node) in COMPARISONS or isinstance(node, exp.Connector | exp.Not | exp.Predicate):
            return self.condition(node)
        if isinstance(node, exp.Case):
            return self._case(node)
        if isinstance(node, exp.If):
            other = node.args.get("false")
            text = f"{self.expr(node.args.get('true'))} if {self.condition(node.this)}"
            return text + (f", {self.expr(other)} otherwise" if other is not None else "")
        if isinstance(node, exp.CurrentDate | exp.CurrentTimestamp):
            return "today" if isinstance(node, exp.CurrentDate) else "now"
        if isinstance(node, exp.Func):
            return self._function(node)
        return self.generic(node)

    def _function(self, node: exp.Func) -> str:
        """Known functions in words; others as "<name> of <args>" when the name is the statement's own."""
        if isinstance(node, exp.TimeToStr | exp.StrToTime) and isinstance(node.args.get("format"), exp.Literal):
            part = DATE_PARTS.get(node.args["format"].this)
            if part:
                return f"{part} of {self._list(self._arguments(node.this))}"
        simple = {exp.Year: "year", exp.Month: "month", exp.Day: "day", exp.Length: "length",
                  exp.Abs: "absolute value", exp.Substring: "part", exp.Round: "rounded value"}
        args = [a for a in node.iter_expressions() if not isinstance(a, exp.DataType)]
        if type(node) in simple:
            return f"{simple[type(node)]} of {self._list(args)}"
        if isinstance(node, exp.Coalesce):
            return " or else ".join(self.expr(a) for a in args)
        match = re.match(r"\s*([A-Za-z_]\w*)\s*\(", node.sql(dialect=self.dialect))
        name = match.group(1).lower() if match else ""
        if name in self.words and not isinstance(node, exp.Case | exp.If):
            return f"{name} of {self._list(args)}" if args else name
        return self.generic(node)

    def _case(self, node: exp.Case) -> str:
        """"'big' if amount greater than 100, 'small' otherwise" (a simple CASE compares its operand)."""
        subject, parts = node.this, []
        for branch in node.args.get("ifs") or []:
            test = branch.this
            cond = f"{self.expr(subject)} is {self.value(test)}" if subject is not None else self.condition(test)
            parts.append(f"{self.expr(branch.args.get('true'))} if {cond}")
        default = node.args.get("default")
        if default is not None:
            parts.append(f"{self.expr(default)} otherwise")
        return ", ".join(parts) if parts else "a computed value"

    def _arguments(self, node: exp.Expr | None) -> list[exp.Expr]:
        """``node`` without the casts sqlglot wraps around date arguments."""
        while isinstance(node, exp.TsOrDsToTimestamp | exp.TsOrDsToDate | exp.Cast | exp.TimeStrToTime):
            node = node.this
        return [node] if node is not None else []

    def _window(self, node: exp.Window) -> str:
        text = self.expr(node.this)
        parts = node.args.get("partition_by") or []
        if parts:
            text += f" per {self._list(parts)}"
        order = node.args.get("order")
        if order is not None:
            text += f" in order of {self._list(order.expressions, ordered=True)}"
        return text

    def generic(self, node: exp.Expr) -> str:
        """"a computed value from x, 'y', sum of z": the columns, values and aggregates inside ``node``."""
        parts: list[str] = []
        stack = list(node.iter_expressions())[::-1]
        while stack:
            child = stack.pop()
            if isinstance(child, _LEAVES):
                phrase = self.expr(child)
                if phrase not in parts:
                    parts.append(phrase)
            elif child is not None:
                stack.extend(list(child.iter_expressions())[::-1])
        return "a computed value" + (f" from {', '.join(parts)}" if parts else "")

    def _list(self, nodes: Sequence[exp.Expr], ordered: bool = False) -> str:
        return ", ".join(self.ordered(n) if ordered else self.expr(n) for n in nodes)

    def ordered(self, node: exp.Expr) -> str:
        """An ORDER BY item: "highest amount first" / "lowest name first"."""
        if isinstance(node, exp.Ordered):
            return f"{'highest' if node.args.get('desc') else 'lowest'} {self.expr(node.this)} first"
        return f"lowest {self.expr(node)} first"

    # -- sub-selects -------------------------------------------------------------------------------------
    def summary(self, query: exp.Expr | None) -> str:
        """One phrase for a sub-select: "stadium_id of concert where year is 2014, highest year first".

        Set operations join their sides' phrases; a SELECT is phrased by :attr:`summarize` (set by
        :func:`tools.sql_select.phraser`; without it, "a computed value from ...").
        """
        if isinstance(query, exp.Subquery):
            query = query.this
        if isinstance(query, exp.SetOperation):
            return f"{self.summary(query.this)}, {set_word(query)} {self.summary(query.expression)}"
        if isinstance(query, exp.Select) and self.summarize is not None:
            return self.summarize(query)
        return self.generic(query) if query is not None else "a computed value"


