"""What was computed, in words: a plain-language account of an executed SQL statement, without an LLM.

:func:`describe_sql` parses the statement with sqlglot and phrases its syntax tree deterministically
(:mod:`tools.sql_select`, :mod:`tools.sql_phrases`), so an analyst who cannot read SQL sees which tables were
read and joined, which rows were kept, what was computed and how the result is ordered::

    Reads customers, invoices: customers with their invoices (matching customer_id).
    Keeps rows where country is 'Brazil' and invoice_date during 2024 (from 2024-01-01 to 2024-12-31).
    Shows name, sum of total as revenue for each name, highest revenue first, first 5 rows.

Every filter value and aggregate of the SQL is mentioned, and every name it mentions is one of the SQL's own
(or a supplied table description or measure name); constructs the describer does not know are "a computed
value from ...". It never raises: SQL that does not parse (or is not a query) gives an empty account.
"""

from __future__ import annotations

from collections.abc import Mapping

import sqlglot
from pydantic import BaseModel, Field
from sqlglot import exp

from tools.sql_conditions import set_word
from tools.sql_select import SelectParts, phraser, tail_phrases


class SqlAccount(BaseModel):
    """The account of one statement; every list keeps the SQL's order and is empty when the part is absent."""

    tables: list[str] = Field(default_factory=list, description="Tables read anywhere in the statement, "
                              "as 'name (description)' when a description was supplied.")
    joins: list[str] = Field(default_factory=list, description="'customers with their invoices (matching "
                             "customer_id)', one per join of the main query.")
    filters: list[str] = Field(default_factory=list, description="WHERE (and extra ON) conditions of the main "
                               "query: \"country is 'Brazil'\", 'amount greater than 100'.")
    group_filters: list[str] = Field(default_factory=list, description="HAVING conditions (on each group).")
    measures: list[str] = Field(default_factory=list, description="Shown aggregates: 'count of rows', "
                                "'sum of amount', or '<measure name> (<phrase>)'.")
    grouping: list[str] = Field(default_factory=list, description="GROUP BY items.")
    ordering: list[str] = Field(default_factory=list, description="'highest amount first', ...")
    limit: int | None = Field(None, description="LIMIT when literal.")
    offset: int | None = Field(None, description="OFFSET when literal.")
    distinct: bool = Field(False, description="SELECT DISTINCT.")
    columns: list[str] = Field(default_factory=list, description="What is shown, one phrase per column.")
    set_operations: list[str] = Field(default_factory=list, description="'union with <phrase>', 'except "
                                      "<phrase>', ... for UNION / INTERSECT / EXCEPT.")
    subqueries: list[str] = Field(default_factory=list, description="'<name>: <phrase>' for each WITH query "
                                  "and sub-select in FROM of the main query (sub-selects in conditions are "
                                  "phrased in the filters).")

    @property
    def empty(self) -> bool:
        """True when nothing was described (the SQL did not parse or is not a query)."""
        return not (self.tables or self.columns)

    def lines(self) -> list[str]:
        """One to four short English sentences; [] for an empty account."""
        if self.empty:
            return []
        out = [f"Reads {', '.join(self.tables)}" + (f": {'; '.join(self.joins)}." if self.joins else ".")
               ] if self.tables else []
        keeps = [f"rows where {' and '.join(self.filters)}"] if self.filters else []
        if self.group_filters:
            keeps.append(f"groups where {' and '.join(self.group_filters)}")
        if keeps:
            out.append(f"Keeps {'; then '.join(keeps)}.")
        shows = f"Shows {', '.join(self.columns)}" + (f" for each {', '.join(self.grouping)}" if self.grouping else "")
        out.append(", ".join([shows, *tail_phrases(self.ordering, self.limit, self.offset, self.distinct)]) + ".")
        more = [s[:1].upper() + s[1:] for s in self.set_operations] + [f"Using {s}" for s in self.subqueries]
        if more:
            out.append(". ".join(more) + ".")
        return out

    @property
    def text(self) -> str:
        """:meth:`lines` joined by newlines ("" for an empty account)."""
        return "\n".join(self.lines())


def describe_sql(sql: str, dialect: str, descriptions: Mapping[str, str] | None = None,
                 measures: Mapping[str, str] | None = None) -> SqlAccount:
    """The :class:`SqlAccount` of the query ``sql`` written in sqlglot ``dialect`` (``sqlite``, ``postgres``...).

    ``descriptions`` maps table names (any case) to a short description shown next to the name; ``measures``
    maps SQL expressions to business names (e.g. knowledge metric records ``{sql: name}``). Never raises: SQL
    that does not parse, several statements or a statement that is not a query give an empty account.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
        while isinstance(tree, exp.Subquery):
            tree = tree.this
        if not isinstance(tree, exp.Query):
            return SqlAccount()
        return _describe(tree, sql, dialect or "", descriptions or {}, measures)
    except Exception:  # the account is optional: odd SQL gets none rather than an error
        return SqlAccount()


def _describe(tree: exp.Query, sql: str, dialect: str, descriptions: Mapping[str, str],
              measures: Mapping[str, str] | None) -> SqlAccount:
    """Phrase a parsed query: the left-most SELECT in full, set operations and WITH queries as one phrase each."""
    ph = phraser(sql, dialect, measures)
    sets: list[str] = []
    node: exp.Expr = tree
    while isinstance(node, exp.SetOperation | exp.Subquery):
        if isinstance(node, exp.SetOperation):
            sets.insert(0, f"{set_word(node)} {ph.summary(node.expression)}")
        node = node.this
    if not isinstance(node, exp.Select):
        return SqlAccount()
    main = SelectParts(node, ph)
    steps = main.steps
    if tree is not node:  # a set operation: its own WITH, ORDER BY and LIMIT apply to the whole
        outer = exp.select(*(e.copy() for e in node.expressions))  # ORDER BY 1 names the first column
        for key in ("with_", "order", "limit", "offset"):
            outer.set(key, tree.args.get(key))
        whole = SelectParts(outer, ph)
        steps = whole.steps + steps
        main.ordering, main.limit, main.offset = whole.ordering or main.ordering, whole.limit, whole.offset
    ctes = {cte.alias.lower() for cte in tree.find_all(exp.CTE)}
    folded = {k.lower(): v for k, v in descriptions.items()}
    found = sorted(tree.find_all(exp.Table), key=lambda t: t.this.meta.get("start", 0))  # in the SQL's order
    names = dict.fromkeys(t.name for t in found if t.name and t.name.lower() not in ctes)
    tables = [f"{n} ({folded[n.lower()]})" if folded.get(n.lower()) else n for n in names]
    return SqlAccount(tables=tables, joins=main.joins, filters=main.filters, group_filters=main.group_filters,
                      measures=main.measures, grouping=main.grouping, ordering=main.ordering, limit=main.limit,
                      offset=main.offset, distinct=main.distinct, columns=main.columns, set_operations=sets,
                      subqueries=steps)
