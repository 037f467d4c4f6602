"""The parts of one SELECT in words: what it reads, how tables are joined, what it keeps, computes and shows.

:class:`SelectParts` splits a parsed SELECT (sqlglot) into phrases with a :class:`tools.sql_phrases.Phraser`;
:func:`phraser` makes a phraser whose sub-selects are phrased the same way (one line each, recursively).
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from tools.sql_conditions import as_date, period
from tools.sql_phrases import Phraser

UPPER_BOUNDS = (exp.LT, exp.LTE)
Link = tuple[str, str, exp.Column, exp.Column, exp.Expr]
"""A column = column condition between two sources: their aliases, the two columns, the condition."""


def phraser(sql: str, dialect: str, measures: Mapping[str, str] | None = None) -> Phraser:
    """A :class:`Phraser` for ``sql`` whose sub-selects are phrased by :meth:`SelectParts.phrase`."""
    ph = Phraser(sql, dialect, measures)
    ph.summarize = lambda select: SelectParts(select, ph).phrase()
    return ph


def conjuncts(node: exp.Expr | None) -> list[exp.Expr]:
    """The AND-ed conditions of a condition, WHERE or HAVING (parentheses are looked through); [] for None."""
    if isinstance(node, exp.Where | exp.Having | exp.Qualify):
        node = node.this
    if node is None:
        return []
    node = node.unnest()
    if isinstance(node, exp.And):
        return [c for part in node.flatten() for c in conjuncts(part)]
    return [node]


class SelectParts:
    """One SELECT in phrases; the lists keep the SQL's order.

    Attributes:
        labels: what each FROM/JOIN source is called (table name, or a sub-select's alias).
        steps: ``"<alias>: <phrase>"`` for each WITH query and each sub-select in FROM.
        joins: "customers with their invoices (matching customer_id)", one per joined source.
        filters / group_filters: WHERE (and extra ON) conditions / HAVING conditions.
        grouping, ordering, columns, measures: GROUP BY items, ORDER BY items ("highest amount first"),
            shown expressions, and the shown expressions that aggregate.
        limit, offset: LIMIT / OFFSET as numbers when they are literal; distinct: SELECT DISTINCT.
    """

    def __init__(self, select: exp.Select, ph: Phraser) -> None:
        """Phrase every part of ``select`` (never raises on the constructs sqlglot parses)."""
        self.ph = ph
        self.sources: dict[str, str] = {}
        self.labels: list[str] = []
        self.steps: list[str] = []
        self.joins: list[str] = []
        self.filters: list[str] = []
        with_ = select.args.get("with_")
        for cte in with_.expressions if with_ else []:
            self.steps.append(f"{cte.alias}: {ph.summary(cte.this)}")
        from_ = select.args.get("from_")
        joins = select.args.get("joins") or []
        self.aliases: list[str] = []
        for source in ([from_.this] if from_ else []) + [j.this for j in joins]:
            self._source(source)
        where_links, where = self._links(conjuncts(select.args.get("where")))
        pool: list[tuple[Link, exp.Join | None]] = [(ln, None) for ln in where_links]
        for join in joins:
            on_links, rest = self._links(conjuncts(join.args.get("on")))
            pool += [(ln, join) for ln in on_links]
            self.filters += [ph.condition(c) for c in rest if not (isinstance(c, exp.Boolean) and c.this)]
        for i, join in enumerate(joins, start=1):
            self._join(join, i, pool)
        self.filters += [ph.condition(ln[4]) for ln, _ in pool] + self._ranges(where)  # links no join used
        self.filters += [f"{ph.condition(c)} (after the window functions)"
                         for c in conjuncts(select.args.get("qualify"))]
        self.group_filters = [ph.condition(c) for c in conjuncts(select.args.get("having"))]
        group = select.args.get("group")
        self.grouping = [self._positional(select, g) or ph.expr(g) for g in group.expressions] if group else []
        self.columns = [self._column(p) for p in select.expressions]
        self.measures = [self._column(p) for p in select.expressions if _aggregates(p)]
        self.ordering = self._ordering(select)
        self.limit = _number(select.args.get("limit"))
        self.offset = _number(select.args.get("offset"))
        self.distinct = bool(select.args.get("distinct"))

    def _source(self, source: exp.Expr) -> None:
        if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
            label = source.name
        elif isinstance(source, exp.Subquery | exp.Lateral) and isinstance(source.this, exp.Query | exp.Subquery):
            label = source.alias or "a sub-select"
            self.steps.append(f"{label}: {self.ph.summary(source.this)}")
        else:
            label = self.ph.expr(source)
        alias = (source.alias_or_name or label).lower()
        self.sources[alias] = label
        self.aliases.append(alias)
        self.labels.append(label)

    def _side(self, column: exp.Expr) -> str | None:
        """The source alias (lower case) of a qualified column, None when unqualified or unknown."""
        if isinstance(column, exp.Column) and column.table and column.table.lower() in self.sources:
            return column.table.lower()
        return None

    def _links(self, conditions: list[exp.Expr]) -> tuple[list[Link], list[exp.Expr]]:
        """Split conditions into column = column links between two sources, and the rest."""
        links: list[Link] = []
        rest: list[exp.Expr] = []
        for cond in conditions:
            if isinstance(cond, exp.EQ):
                a, b = self._side(cond.this), self._side(cond.expression)
                if a and b and a != b:
                    links.append((a, b, cond.this, cond.expression, cond))
                    continue
            rest.append(cond)
        return links, rest

    def _join(self, join: exp.Join, index: int, pool: list[tuple[Link, exp.Join | None]]) -> None:
        """The phrases of the ``index``-th source, joined by ``join``: one per earlier source it is matched to.

        Its keys are the column = column links of ``pool`` (from any ON, or from WHERE for an inner join)
        between it and an earlier source; the links it uses leave ``pool``. A source only linked to later
        ones is phrased with them; one linked to none is "<first> with every <it>".
        """
        right, label = self.aliases[index], self.labels[index]
        side = (join.side or "").upper()
        earlier = self.aliases[:index]
        mine = [(ln, origin) for ln, origin in pool if right in ln[:2] and (ln[0] if ln[1] == right else ln[1])
                in earlier and (origin is join or not side)]
        keys: dict[str, list[str]] = {}
        for item in mine:
            pool.remove(item)
            a, b, col_a, col_b, _ = item[0]
            other, theirs, its = (a, col_a, col_b) if b == right else (b, col_b, col_a)
            same = theirs.name.lower() == its.name.lower()
            keys.setdefault(other, []).append(theirs.name if same else f"{theirs.name} to {its.name}")
        if join.args.get("using") or str(join.args.get("method") or "").upper() == "NATURAL":
            using = [self.ph.expr(u) for u in join.args.get("using") or []] or ["the columns of the same name"]
            keys.setdefault(self.aliases[0], []).extend(using)
        if not keys and not any(right in ln[:2] for ln, _ in pool):
            self.joins.append(f"{self.labels[0]} with every {label}")
        for other, matched in keys.items():
            left = self.sources[other]
            text = f"{left} with their {label} (matching {', '.join(matched)})"
            text += {"LEFT": f", keeping {left} without any {label}", "RIGHT": f", keeping {label} without a match",
                     "FULL": ", keeping unmatched rows of both"}.get(side, "")
            self.joins.append(text)

    def _ranges(self, conditions: list[exp.Expr]) -> list[str]:
        """Conditions in words; a date lower bound (>=) and upper bound on one column become one phrase."""
        def dated(cond: exp.Expr) -> bool:
            return as_date(self.ph.literal(cond.args.get("expression"))) is not None

        highs = [c for c in conditions if isinstance(c, UPPER_BOUNDS) and dated(c)]
        pairs: dict[int, exp.Expr] = {}
        for low in conditions:
            if isinstance(low, exp.GTE) and dated(low):
                high = next((h for h in highs if h.this == low.this), None)
                if high is not None:
                    highs.remove(high)
                    pairs[id(low)] = high
        skip = {id(h) for h in pairs.values()}
        return [self._range(c, pairs[id(c)]) if id(c) in pairs else self.ph.condition(c)
                for c in conditions if id(c) not in skip]

    def _range(self, low: exp.Expr, high: exp.Expr) -> str:
        lo, hi = as_date(self.ph.literal(low.expression)), as_date(self.ph.literal(high.expression))
        inclusive = isinstance(high, exp.LTE)
        lo_text, hi_text = self.ph.value(low.expression), self.ph.value(high.expression)
        covered = period(lo, hi, inclusive) if lo and hi else None
        if covered:
            return self.ph.during(low.this, covered, lo_text, hi_text, before=not inclusive)
        return f"{self.ph.expr(low.this)} from {lo_text} to {'' if inclusive else 'before '}{hi_text}"

    def _column(self, node: exp.Expr) -> str:
        if isinstance(node, exp.Column) and isinstance(node.this, exp.Star) and node.table.lower() in self.sources:
            return f"all columns of {self.sources[node.table.lower()]}"  # T1.* names its table
        text = self.ph.expr(node)
        alias = node.alias if isinstance(node, exp.Alias) else ""
        return f"{text} as {alias}" if alias and alias.lower() != text.lower() else text

    def _positional(self, select: exp.Query, item: exp.Expr) -> str | None:
        """The shown expression an ``ORDER BY 2`` / ``GROUP BY 1`` position names, else None."""
        if isinstance(item, exp.Literal) and item.is_int and isinstance(select, exp.Select):
            n = int(item.this)
            if 0 < n <= len(select.expressions):
                return self.ph.expr(select.expressions[n - 1])
        return None

    def _ordering(self, select: exp.Query) -> list[str]:
        order = select.args.get("order")
        out = []
        for item in order.expressions if order else []:
            shown = self._positional(select, item.this if isinstance(item, exp.Ordered) else item)
            if shown is not None:
                out.append(f"{'highest' if item.args.get('desc') else 'lowest'} {shown} first")
            else:
                out.append(self.ph.ordered(item))
        return out

    def phrase(self) -> str:
        """The whole SELECT in one phrase: "<columns> of <sources> where ..., for each ..., highest ... first"."""
        sources = "; ".join(self.joins) or ", ".join(self.labels)
        text = ", ".join(self.columns) + (f" of {sources}" if sources else "")
        if self.filters:
            text += f" where {' and '.join(self.filters)}"
        if self.grouping:
            text += f" for each {', '.join(self.grouping)}"
        if self.group_filters:
            text += f" keeping groups where {' and '.join(self.group_filters)}"
        return ", ".join([text, *self.tail()]) + (f" ({'; '.join(self.steps)})" if self.steps else "")

    def tail(self) -> list[str]:
        """Ordering, row limit and duplicates, as phrases (see :func:`tail_phrases`)."""
        return tail_phrases(self.ordering, self.limit, self.offset, self.distinct)


def tail_phrases(ordering: list[str], limit: int | None, offset: int | None, distinct: bool) -> list[str]:
    """``ordering`` followed by "first 5 rows", "skipping 10 rows", "without duplicates" as they apply."""
    out = list(ordering)
    if limit is not None:
        out.append(f"first {limit} rows" if limit != 1 else "first row only")
    if offset:
        out.append(f"skipping {offset} rows")
    if distinct:
        out.append("without duplicates")
    return out


def _aggregates(node: exp.Expr) -> bool:
    """True when ``node`` computes an aggregate of its own (aggregates inside sub-selects do not count)."""
    return any(isinstance(n, exp.AggFunc)
               for n in node.walk(prune=lambda n: isinstance(n, exp.Subquery | exp.Query) and n is not node))


def _number(node: exp.Expr | None) -> int | None:
    """The literal integer of a LIMIT/OFFSET clause, else None."""
    value = node.args.get("count" if isinstance(node, exp.Fetch) else "expression") if node is not None else None
    return int(value.this) if isinstance(value, exp.Literal) and value.is_int else None
