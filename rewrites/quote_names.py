"""Quote the schema's names that need quoting where a model wrote them bare (``SUM(Total Revenue)``, ``#Key = 1``).

Tables and columns loaded from spreadsheets and CSV files keep names with spaces, ``#``, ``%``, ``-`` or a leading
digit (``Total Revenue``, ``#_Records``, ``rate-%``, ``2019_sales``). A small model often writes them as they read,
without quotes; the SQL then does not parse (``SUM(Total Revenue)``), or parses as something else
(``SELECT Total Revenue FROM t`` reads a column ``Total`` named ``Revenue``), and a repair call is spent on what is
a matter of spelling. :func:`quote_names` wraps each such name of the schema, where it appears bare in the SQL
text (outside string literals and quoted identifiers, not inside a longer name), in the dialect's identifier
quotes. Longer names first, so ``Total Revenue 2019`` is not cut at ``Total Revenue``. Text-level: it runs on every
written query before the guard (phase ``written`` of :mod:`rewrites.pipeline`), and its result is kept only when
the guard accepts it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sqlglot import exp

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`|\[[^\]]*\]")
_IDENT = r"[\w\"`\[\]]"


def needs_quotes(name: str) -> bool:
    """True for a name with a letter that is not a plain identifier (letters, digits, ``_``, ``$``; no leading digit).

    A name without a letter (``2019``, ``%``) is never looked for: quoting it would turn a number of the SQL into
    a column.
    """
    return bool(name) and not _PLAIN.match(name) and any(ch.isalpha() for ch in name)


def quote_names(sql: str, names: Iterable[str], dialect: str) -> str | None:
    """``sql`` with every bare occurrence of a name in ``names`` that needs quotes quoted; None when none was bare.

    Args:
        sql: SQL text (it need not parse).
        names: the schema's table and column names as stored (only those that need quotes are looked for).
        dialect: sqlglot dialect whose identifier quotes are written (``"x"``; MySQL's ```x```).

    Matching ignores case and requires that the characters around an occurrence are not identifier characters or
    quotes; string literals and quoted identifiers are left as they are.
    """
    wanted = sorted({n for n in names if needs_quotes(n)}, key=len, reverse=True)
    if not wanted:
        return None
    by_lower = {n.lower(): n for n in reversed(wanted)}
    pattern = re.compile(rf"(?<!{_IDENT})(?:{'|'.join(re.escape(n) for n in wanted)})(?!{_IDENT})", re.I)
    count = 0

    def quote(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return exp.to_identifier(by_lower[match.group(0).lower()], quoted=True).sql(dialect=dialect)

    parts: list[str] = []
    last = 0
    for literal in _QUOTED.finditer(sql):  # one pass over each stretch between literals: longest name first
        parts += [pattern.sub(quote, sql[last:literal.start()]), literal.group(0)]
        last = literal.end()
    parts.append(pattern.sub(quote, sql[last:]))
    return "".join(parts) if count else None
