"""Deterministic near-miss guard for approved-answer reuse (tools.reuse), run before the model check.

Measured on the learning set's near misses (benchmarks/sets/learning), the 1.5B model's yes/no check called 9 of 16 near
misses "the same question" as an approved one: another company, the fewest instead of the most, a list instead
of a count. Those differences are visible without a model:

- **Shape** (:func:`shape_conflict`): the aggregate a question asks for - a count, a total, an average, the
  most or the fewest - read from fixed word lists (English and French). The approved *question's* kinds must
  all be asked again (a list of companies is not "how many"), and a new question may not ask for a direction
  or an average that neither the approved question nor its SQL has (``ORDER BY .. DESC LIMIT`` reads as
  "most").
- **Entity** (:func:`entity_conflict`): a database value the new question names (a confident referential
  value match) that the approved question does not mention must be the approved SQL's own entity, i.e. its
  value, key or a sibling code ("Swiss franc" -> currencies row with key 'CHF') is a literal of the approved
  SQL. "Apple" (TICKER 'AAPL') against SQL filtering 'MSFT' is another question.

Both return the reason as text (for the trace) or None. They only ever *stop* a reuse; what passes still
goes to the model check. Idea: the query sketch of RubikSQL's experience index (seed 000), reduced to the
parts a word list can read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import sqlglot
from sqlglot import exp

_KIND_PATTERNS: dict[str, str] = {
    "count": r"\bhow many\b|\bnumber of\b|\bcount(?:s|ed)?\b|\bcombien\b|\bnombre\b",
    "sum": r"\btotal\b(?!\s+(?:number|count))|\bsum\b|\bhow much\b|\baltogether\b|\bsomme\b",
    "avg": r"\baverage\b|\bmean\b|\bavg\b|\bmoyen(?:ne)?s?\b",
    "max": r"\bmost\b|\bhighest\b|\blargest\b|\bbiggest\b|\bgreatest\b|\bmax(?:imum)?\b|\btop\b"
           r"|\ble plus\b|\bla plus\b|\bmaximal",
    "min": r"\bfewest\b|\bleast\b|\blowest\b|\bsmallest\b|\bmin(?:imum)?\b|\bbottom\b|\ble moins\b"
           r"|\bla moins\b|\bminimal",
}
_KINDS = {kind: re.compile(pattern) for kind, pattern in _KIND_PATTERNS.items()}
ASKED_AGAIN = ("count", "sum", "avg", "max", "min")
"""Kinds an approved question asks for that a reusing question must ask for too."""
NOT_NEW = ("max", "min", "avg")
"""Kinds a reusing question may only ask for when the approved question or its SQL has them."""


def question_kinds(question: str) -> set[str]:
    """Aggregate kinds a question asks for: subset of {"count", "sum", "avg", "max", "min"}.

    "Which exchange has the most listed companies?" -> {"max"}; "How many companies ..." -> {"count"}.
    """
    text = " ".join(question.lower().split())
    return {kind for kind, pattern in _KINDS.items() if pattern.search(text)}


def sql_kinds(sql: str, dialect: str | None = None) -> set[str]:
    """Aggregate kinds of a query: COUNT/SUM/AVG/MAX/MIN, and ORDER BY with LIMIT as "max" (DESC) or "min".

    Returns an empty set for SQL that does not parse.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return set()
    if tree is None:
        return set()
    kinds = {name for name, node in (("count", exp.Count), ("sum", exp.Sum), ("avg", exp.Avg),
                                     ("max", exp.Max), ("min", exp.Min)) if tree.find(node)}
    for select in tree.find_all(exp.Select):
        order = select.args.get("order")
        if order is not None and select.args.get("limit") is not None:
            kinds |= {"max" if o.args.get("desc") else "min" for o in order.expressions}
    return kinds


def shape_conflict(question: str, approved_question: str, approved_sql: str,
                   dialect: str | None = None) -> str | None:
    """Why ``question`` asks for another aggregate than the approved pair, or None when the shapes agree."""
    new, old = question_kinds(question), question_kinds(approved_question)
    missing = [k for k in ASKED_AGAIN if k in old and k not in new]
    if missing:
        return f"the approved question asks for {', '.join(missing)}; the new one does not"
    allowed = old | sql_kinds(approved_sql, dialect)
    extra = [k for k in NOT_NEW if k in new and k not in allowed]
    if extra:
        return f"the new question asks for {', '.join(extra)}; the approved answer does not compute it"
    return None


def sql_literals(sql: str, dialect: str | None = None) -> set[str]:
    """Lower-cased string and number literals of a query (empty when it does not parse)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return set()
    return {str(lit.this).lower() for lit in tree.find_all(exp.Literal)} if tree is not None else set()


def _names(match: dict[str, Any]) -> Iterable[str]:
    """The value, key and sibling codes of one value match, lower-cased."""
    yield str(match.get("value", "")).lower()
    if match.get("id") not in (None, ""):
        yield str(match["id"]).lower()
    yield from (str(v).lower() for v in dict(match.get("siblings") or {}).values())


def entity_conflict(approved_question: str, approved_sql: str, matches: list[dict[str, Any]],
                    dialect: str | None = None) -> str | None:
    """Why a value the new question names is not the approved answer's entity, or None.

    ``matches`` are the new question's confident value matches (:class:`retrieval.values.ValueMatch` dicts:
    ``mention``, ``value``, ``id``, ``siblings``). A match whose mention the approved question contains is the
    same entity; otherwise its value, key or a sibling must be a literal of ``approved_sql``. Only mentions
    written with a capital letter count (names and codes): a fuzzy match of a common word ("francs" ->
    'France') is too weak to stop a reuse.
    """
    asked = approved_question.lower()
    literals = sql_literals(approved_sql, dialect)
    for match in matches:
        mention = str(match.get("mention", "")).strip().lower()
        if not mention or mention in asked or str(match.get("mention", "")).islower():
            continue
        if not any(name and name in literals for name in _names(match)):
            return f"'{match.get('mention')}' is {match.get('value')!r}, which the approved SQL does not use"
    return None
