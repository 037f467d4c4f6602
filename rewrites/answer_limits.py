"""Output discipline: a row limit and a sort direction only where the question asks for them.

Small models add ``ORDER BY x DESC LIMIT 10`` to plain listings ("What are the names of all people, ordered by
their day of birth?" came back as the 100 latest-born), and ``LIMIT 1`` to questions that ask for every match.
Three steps of the rewrite pipeline, all on the outermost SELECT only and all needing the question:

* :func:`drop_unasked_limit`: a ``LIMIT`` goes when the question has no ranking or count cue (:func:`asks_rank`:
  "top", "first", a superlative such as "largest", "most", a number of rows such as "3 youngest");
* :func:`order_as_asked`: ``ORDER BY ... DESC`` becomes ascending when the question asks for an order ("ordered
  by", "sorted by", "in order of") without a descending cue and the query keeps no ``LIMIT`` (a "top n" pick
  stays as written);
* :func:`drop_rank_figure`: in a top-n pick (``ORDER BY figure LIMIT n``) whose figure is an aggregate the
  SELECT list also shows beside the picked entity ("Which code appears most often?" answered as
  ``SELECT code, COUNT(*) ... ORDER BY COUNT(*) DESC LIMIT 1``), the figure column goes when the question does
  not ask for a figure (:func:`asks_figure`: "how many", "number", "count", "total", "average", ...): the
  question asked which entity, and the ORDER BY keeps ranking by the figure.

All three were measured by leave-one-out replay (``scripts/replay_cascade.py --per-step``) before becoming defaults;
see docs/benchmarks.md.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from database.sql_sources import parse_select

_RANK = re.compile(
    r"\b(top|first|last|bottom|most|least|fewest|max(imum)?|min(imum)?|best|worst|latest|earliest|newest|"
    r"oldest|recent|limit|single|one|only|highest|lowest|largest|smallest|biggest|greatest|longest|shortest|"
    r"youngest|cheapest|rank(ed|ing)?|\w{3,}est)\b", re.IGNORECASE)
_NOT_SUPERLATIVE = frozenset({"interest", "request", "forest", "suggest", "west", "test", "honest", "rest", "guest",
                              "contest", "protest", "invest", "digest", "harvest", "earnest", "modest", "arrest",
                              "interests", "manifest", "conquest", "quest", "southwest", "northwest", "midwest",
                              "budapest", "bucharest", "everest", "nest", "chest", "pest", "vest", "zest", "crest"})
_COUNT = re.compile(r"\b\d+\s+(?!(?:years?|days?|months?|weeks?|hours?|minutes?|seconds?|percent)\b)[a-z]+",
                    re.IGNORECASE)
_ORDER = re.compile(r"\b(order(ed)?|sort(ed)?|rank(ed)?|arrange(d)?)\b|\bin\s+\w+\s+order\b", re.IGNORECASE)
_DESCENDING = re.compile(r"\b(desc(ending)?|decreasing|descend|reverse|high(est)?\s+to\s+low|large(st)?\s+to\s+"
                         r"small|most\s+to\s+least|latest|newest|most\s+recent|highest|largest|biggest|most|"
                         r"from\s+(?:the\s+)?\w+\s+to\s+(?:the\s+)?\w+)\b",
                         re.IGNORECASE)


def asks_rank(question: str) -> bool:
    """True when ``question`` asks for a ranking, a pick or a number of rows ("top 5", "the oldest", "3 cities")."""
    for found in _RANK.finditer(question):
        if found.group(0).lower() not in _NOT_SUPERLATIVE:
            return True
    return bool(_COUNT.search(question))


_FIGURE = re.compile(
    r"\b(how\s+(many|much)|numbers?|counts?|total|sum|average|avg|mean|amount|quantity|percent(age)?|share|"
    r"ratio|rate|score|figures?|values?|max(imum)?|min(imum)?|statistics|along\s+with|as\s+well\s+as|"
    r"and\s+(its|their|the)\s+\w+)\b", re.IGNORECASE)


def asks_figure(question: str) -> bool:
    """True when ``question`` may ask to see a computed figure ("how many", "with their total", "and the count").

    Deliberately broad: it only keeps a column the model chose to show.
    """
    return bool(_FIGURE.search(question))


def drop_unasked_limit(sql: str, dialect: str, question: str) -> str | None:
    """``sql`` without its outer ``LIMIT`` when ``question`` asks for no ranking or pick; None when unchanged.

    A ``LIMIT`` with ``OFFSET`` stays (paging is deliberate). Never raises.
    """
    select = parse_select(sql, dialect)
    if select is None or select.args.get("limit") is None or select.args.get("offset") is not None:
        return None
    if asks_rank(question):
        return None
    select.set("limit", None)
    return select.sql(dialect=dialect)


def order_as_asked(sql: str, dialect: str, question: str) -> str | None:
    """``sql`` with its outer ``ORDER BY`` keys ascending, or None when unchanged.

    Only when the question asks for an order but not a descending one and the query keeps no ``LIMIT``.
    Never raises.
    """
    if not _ORDER.search(question) or _DESCENDING.search(question):
        return None
    select = parse_select(sql, dialect)
    if select is None or select.args.get("limit") is not None:
        return None
    order = select.args.get("order")
    keys = list(order.expressions) if isinstance(order, exp.Order) else []
    descending = [k for k in keys if isinstance(k, exp.Ordered) and k.args.get("desc")]
    if not descending:
        return None
    small = Dialect.get_or_raise(dialect).NULL_ORDERING == "nulls_are_small"
    for key in descending:
        key.set("desc", False)
        key.set("nulls_first", small)  # the dialect's own ascending order (SQLite: NULLs first)
    return select.sql(dialect=dialect)


def _aggregate(projection: exp.Expression) -> exp.Expression | None:
    """The expression of ``projection`` (its alias unwrapped) when it computes an aggregate, else None."""
    inner = projection.this if isinstance(projection, exp.Alias) else projection
    return inner if inner.find(exp.AggFunc) is not None else None


def drop_rank_figure(sql: str, dialect: str, question: str) -> str | None:
    """``sql`` without the aggregate column its top-n pick ranks by, or None when unchanged.

    Acts on an outer ``SELECT entity, AGG(...) ... ORDER BY AGG(...) LIMIT n`` (the ORDER BY naming the aggregate
    or its alias): the aggregate column goes, an ORDER BY on its alias is rewritten to the aggregate itself, and
    the rows picked stay the same. Not when the question may ask for a figure (:func:`asks_figure`), the query is
    DISTINCT, an ORDER BY key is a column position, or no column other than aggregates would remain. Never raises.
    """
    if asks_figure(question):
        return None
    select = parse_select(sql, dialect)
    if select is None or select.args.get("limit") is None or select.args.get("distinct") is not None:
        return None
    order = select.args.get("order")
    keys = [k for k in (order.expressions if isinstance(order, exp.Order) else []) if isinstance(k, exp.Ordered)]
    projections = list(select.expressions)
    if not keys or len(projections) < 2 or any(isinstance(k.this, exp.Literal) for k in keys):
        return None  # an ordinal key (ORDER BY 2) would point elsewhere once a column goes
    dropped: set[int] = set()
    for i, projection in enumerate(projections):
        figure = _aggregate(projection)
        if figure is None:
            continue
        alias = projection.alias.lower() if isinstance(projection, exp.Alias) else ""
        for key in keys:
            target = key.this
            by_alias = bool(alias) and isinstance(target, exp.Column) and not target.table and \
                target.name.lower() == alias
            if target == figure or by_alias:
                dropped.add(i)
                if by_alias:
                    key.set("this", figure.copy())
    kept = [p for i, p in enumerate(projections) if i not in dropped]
    if not dropped or all(_aggregate(p) is not None for p in kept):
        return None
    select.set("expressions", kept)
    return select.sql(dialect=dialect)
