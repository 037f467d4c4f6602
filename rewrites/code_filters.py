"""Filters on a code the question never names, dropped (or pointed at the code it does name).

Asked "Top 5 stocks by return in 2024", the 1.5B model writes ``WHERE m.LIMAR = 'XNYS'``; asked "Which
Financials stock had the best return in October 2025?" next to the example "Worst 5 performers on the London
Stock Exchange ...", it keeps the example's ``m.LIMAR = 'XLON'``. Both queries run and rank a subset. The
knowledge file knows these codes: a synonym record ``NYSE`` (``exchanges.mic = 'XNYS'``, also called "New York
Stock Exchange", "Big Board") or an enum record (``MCAP: market-cap weighted``) binds a code to a column and to
the words that name it. :func:`fix_code_filters` rewrites every ``column = 'CODE'`` / ``column IN (...)``
conjunct of a WHERE (outer query, subqueries and CTEs) whose codes are all bound to that column and none named
by the question:

- when the question names exactly one other code of that column (a matched synonym record whose code the SQL
  does not use), the literal becomes that code ("London stocks" answered with ``'XNYS'``);
- otherwise the conjunct is dropped.

"Named" means the knowledge matcher matches the binding record's name or a synonym (case, plural and word order
folded, :class:`knowledge.lookup.KnowledgeMatcher`), or the code, an enum code's meaning or a word only that
record uses among the column's records occurs in the question (:func:`rewrites.literals.named_in`: "Japan" names
the Tokyo Stock Exchange through its synonym "Japanese exchange"). It errs towards keeping a filter. Codes the knowledge file does not bind are never touched, so a database
without a knowledge file (Spider) is unchanged. Before the query runs, no model call; never raises.
BAR-SQL (seed 001) binds business words to mandatory constraints; this is the converse: a constraint with no
business word behind it is not mandatory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlglot import exp

from database.sql_sources import parse_select
from database.sql_sources import tables as plain_tables
from knowledge.lookup import STOPWORDS, KnowledgeMatcher, normalise
from knowledge.records import KnowledgeRecord
from rewrites.literals import named_in

_BOUND = re.compile(r"\b(\w+)\.(\w+)\s*=\s*'([^']+)'")


@dataclass(frozen=True)
class CodeBinding:
    """``code`` of ``table.column`` (lower-cased names), named in questions by record ``record_id``.

    ``meaning`` is an enum code's meaning ('' for a synonym record, whose name and synonyms name it); ``words``
    are the words of the record's name and synonyms that no other record bound to the same column uses
    (``tokyo``, ``japanese`` and ``tse`` for the Tokyo Stock Exchange, not ``stock`` or ``exchange``).
    """

    table: str
    column: str
    code: str
    record_id: str
    meaning: str = ""
    words: tuple[str, ...] = ()


def code_bindings(records: Sequence[KnowledgeRecord]) -> list[CodeBinding]:
    """Every (column, code) the approved enum and synonym records of ``records`` bind.

    An enum binds each of its ``values`` codes to each of its ``columns``; a synonym binds the literals of its
    definition (``exchanges.mic = 'XNYS'``) to that column and to each of its ``columns`` (``EQ_MSTR.LIMAR``).
    Columns not written ``TABLE.COLUMN`` are skipped.
    """
    found: list[CodeBinding] = []
    for record in records:
        if record.status != "approved":
            continue
        columns = [tuple(c.lower().split(".")) for c in record.columns if c.count(".") == 1]
        if record.type == "enum":
            found += [CodeBinding(t, c, code, record.id, meaning)
                      for code, meaning in record.values.items() for t, c in columns]
        elif record.type == "synonym":
            for table, column, code in _BOUND.findall(record.definition):
                for t, c in dict.fromkeys([(table.lower(), column.lower()), *columns]):
                    found.append(CodeBinding(t, c, code, record.id))
    return _with_words(found, {r.id: r for r in records})


def _with_words(found: list[CodeBinding], records: dict[str, KnowledgeRecord]) -> list[CodeBinding]:
    """``found`` with each synonym binding's distinctive words (see :class:`CodeBinding`)."""
    words = {r.id: {w for p in r.phrases for w in normalise(p) if len(w) >= 3 and w not in STOPWORDS}
             for r in records.values()}
    owners: dict[tuple[str, str, str], set[str]] = {}
    for b in found:
        for w in words[b.record_id]:
            owners.setdefault((b.table, b.column, w), set()).add(b.record_id)
    return [b if b.meaning else replace(b, words=tuple(sorted(w for w in words[b.record_id]
                                                              if owners[(b.table, b.column, w)] == {b.record_id})))
            for b in found]


def fix_code_filters(sql: str, dialect: str, question: str, bindings: Sequence[CodeBinding],
                     matcher: KnowledgeMatcher) -> str | None:
    """``sql`` without filters on codes the question never names (see the module docstring); None if unchanged.

    ``matcher`` matches the records of ``bindings`` (the approved knowledge records) in ``question``.
    """
    if not bindings:
        return None
    tree = parse_select(sql, dialect)
    if tree is None:
        return None
    matched = {m.record_id for m in matcher.match(question)}
    used = {str(lit.this).casefold() for lit in tree.find_all(exp.Literal) if lit.is_string}
    changed = False
    for select in list(tree.find_all(exp.Select)):
        where = select.args.get("where")
        if where is None:
            continue
        aliases = {t.alias_or_name.lower(): t.name.lower() for t in plain_tables(select)}
        parts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        keep: list[exp.Expr] = []
        for part in parts:
            verdict = _judge(part, aliases, question, bindings, matched, used)
            if verdict == "drop":
                changed = True
                continue
            if isinstance(verdict, tuple):
                literal, code = verdict
                literal.replace(exp.Literal.string(code))
                changed = True
            keep.append(part)
        if len(keep) != len(parts):
            select.set("where", exp.Where(this=exp.and_(*keep)) if keep else None)
    return tree.sql(dialect=dialect) if changed else None


def _judge(part: exp.Expr, aliases: dict[str, str], question: str, bindings: Sequence[CodeBinding],
           matched: set[str], used: set[str]) -> str | tuple[exp.Literal, str] | None:
    """'drop', (literal, replacement code) or None (keep) for one WHERE conjunct."""
    pair = _code_filter(part)
    if pair is None:
        return None
    column, literals = pair
    table = aliases.get(column.table.lower()) if column.table else None
    if column.table and table is None:
        return None
    mine = [b for b in bindings if b.column == column.name.lower() and (table is None or b.table == table)]
    codes = {b.code.casefold(): b for b in mine}
    hits = [codes.get(str(lit.this).casefold()) for lit in literals]
    if not hits or any(b is None or _named(b, question, matched) for b in hits):
        return None
    others = {b.code for b in mine if b.code.casefold() not in used and _named(b, question, matched)}
    if len(others) == 1 and len(literals) == 1:
        return literals[0], others.pop()
    return "drop" if not others else None


def _code_filter(part: exp.Expr) -> tuple[exp.Column, list[exp.Literal]] | None:
    """(column, string literals) of ``column = 'x'`` (either side) or ``column IN ('x', ...)``; else None."""
    if isinstance(part, exp.EQ):
        for col, lit in ((part.this, part.expression), (part.expression, part.this)):
            if isinstance(col, exp.Column) and isinstance(lit, exp.Literal) and lit.is_string:
                return col, [lit]
    if isinstance(part, exp.In) and isinstance(part.this, exp.Column) and not part.args.get("query"):
        literals = part.expressions
        if literals and all(isinstance(lit, exp.Literal) and lit.is_string for lit in literals):
            return part.this, list(literals)
    return None


def _named(binding: CodeBinding, question: str, matched: set[str]) -> bool:
    """Does the question name ``binding``'s code (its record matched, the code or its meaning written)?"""
    if binding.record_id in matched and not binding.meaning:
        return True
    return any(named_in(question, text) for text in (binding.code, binding.meaning, *binding.words) if text)
