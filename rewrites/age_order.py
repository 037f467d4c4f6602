"""'Youngest' sorts an age up and a birth date down: the direction of an age superlative, fixed without a model.

A small model reads "the youngest student" as "the largest age" about as often as not
(``ORDER BY age DESC LIMIT 1``, ``MAX(age)``), and "oldest" over a birth date the same way round. The words fix
the direction once the column is known for what it holds:

- an **age** (a column whose name, abbreviations expanded, has the word "age": ``AGE``, ``STDNT_AGE``): the
  youngest has the smallest value, the oldest the largest;
- a **birth date** ("birth", "dob", or an abbreviation of "birth", and no place word: ``DATE_OF_BIRTH``,
  ``BRTH_DT``, not ``BIRTH_PLACE``): the youngest was born last, so it has the largest value, the oldest the
  smallest.

:func:`fix_age_order` sets every ``ORDER BY`` key on such a column to the direction the question's superlative
asks for, and turns ``MAX``/``MIN`` of such a column into the other when the question asks for the opposite end.
It acts only when the question has exactly one of "youngest" and "oldest" (both, as in "the ages of the youngest
and the oldest", leave the query alone), except "from the oldest to the youngest" (or the reverse), which sets
the sort keys only. Columns whose names say nothing (``c10``) are not touched. No model call; the idea is the
superlative-to-direction mapping that text-to-SQL error studies list among the commonest small-model slips
(e.g. the "ORDER BY direction" class of Shen et al.'s NL2SQL error taxonomy, 2024).
"""

from __future__ import annotations

import re
from typing import Literal

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from database.sql_sources import parse_query
from knowledge.abbreviations import expand_name, split_words
from retrieval.term_expansion import abbreviates

Kind = Literal["age", "birth"]

_YOUNGEST = re.compile(r"\byoungest\b", re.IGNORECASE)
_OLDEST = re.compile(r"\boldest\b", re.IGNORECASE)
_FROM_TO = re.compile(r"\bfrom\s+(?:the\s+)?(youngest|oldest)\s+to\s+(?:the\s+)?(?:youngest|oldest)\b", re.IGNORECASE)
_BIRTH_WORDS = frozenset({"birth", "dob", "birthday", "birthdate"})
_PLACE_WORDS = frozenset({"place", "state", "city", "country", "town", "region", "nation", "hometown", "st"})


def column_kind(name: str) -> Kind | None:
    """``"age"`` or ``"birth"`` when the column's name says it holds an age or a birth date, else None."""
    words = set(split_words(name))
    words |= set(split_words(expand_name(name) or ""))
    if "age" in words:
        return "age"
    birth = words & _BIRTH_WORDS or any(abbreviates(w, "birth") for w in words if len(w) >= 3)
    return "birth" if birth and not words & _PLACE_WORDS else None


def asked_end(question: str) -> tuple[Literal["young", "old"], bool] | None:
    """Which end the question asks for and whether extremes (``MAX``/``MIN``) may be swapped too.

    ``("young", True)`` for "the youngest student", ``("old", False)`` for "from the oldest to the youngest"
    (an order, not a pick); None when neither word is there or both are without a "from ... to".
    """
    ordered = _FROM_TO.search(question)
    if ordered:
        return ("young" if ordered.group(1).lower() == "youngest" else "old"), False
    young, old = bool(_YOUNGEST.search(question)), bool(_OLDEST.search(question))
    if young == old:
        return None
    return ("young" if young else "old"), True


def _descending(kind: Kind, end: str) -> bool:
    """Whether the asked end comes first in a descending sort of a column of ``kind``."""
    return (kind == "age") == (end == "old")


def fix_age_order(sql: str, dialect: str, question: str) -> str | None:
    """``sql`` with its age and birth-date sorts and extremes turned to the end the question asks for.

    Returns None when the question asks for neither end (:func:`asked_end`), the query does not parse or
    nothing changes. Never raises.
    """
    asked = asked_end(question)
    if asked is None:
        return None
    end, extremes = asked
    tree = parse_query(sql, dialect)
    if tree is None:
        return None
    changed = False
    small = Dialect.get_or_raise(dialect).NULL_ORDERING == "nulls_are_small"
    for key in list(tree.find_all(exp.Ordered)):
        kind = column_kind(key.this.name) if isinstance(key.this, exp.Column) else None
        if kind is None:
            continue
        want = _descending(kind, end)
        if bool(key.args.get("desc")) != want:
            key.set("desc", want)
            key.set("nulls_first", small != want)  # the dialect's own NULL placement for that direction
            changed = True
    if extremes:
        for node in list(tree.find_all(exp.Max, exp.Min)):
            kind = column_kind(node.this.name) if isinstance(node.this, exp.Column) else None
            if kind is None:
                continue
            largest = _descending(kind, end)
            if isinstance(node, exp.Max) != largest:
                node.replace((exp.Max if largest else exp.Min)(this=node.this.copy()))
                changed = True
    return tree.sql(dialect=dialect) if changed else None
