"""Masking of sensitive (personal) data before it reaches prompts, indexes or enrichment files.

A column is sensitive when one of the configured regexes (``RetrievalSettings.sensitive_patterns``) matches
its name, case-insensitively, either as written (``BillingAddress``) or in snake_case form
(``billing_address``; CamelCase split, non-alphanumerics turned into ``_``), so patterns may anchor on word
edges with ``(^|_)`` and ``($|_)``. Only values are hidden: names, types and counts stay visible.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from functools import lru_cache

from database.schema_types import TableInfo

MASK = "<masked>"
"""Replacement text of a masked value."""


def default_patterns() -> list[str]:
    """The default ``sensitive_patterns`` of :class:`core.settings.RetrievalSettings` (a new list)."""
    from core.settings import RetrievalSettings

    return list(RetrievalSettings().sensitive_patterns)


def snake_case(name: str) -> str:
    """Snake-case form of a column name.

    ``"BillingPostalCode"`` -> ``"billing_postal_code"``, ``"CustDOB"`` -> ``"cust_dob"``,
    ``"E-Mail Address"`` -> ``"e_mail_address"``.
    """
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@lru_cache(maxsize=32)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


def is_sensitive(column_name: str, patterns: Iterable[str]) -> bool:
    """True when any regex of ``patterns`` matches ``column_name`` or its :func:`snake_case` form.

    Matching uses ``re.search``, case-insensitive. Raises ``re.error`` for an invalid pattern.
    """
    forms = (column_name, snake_case(column_name))
    return any(rx.search(form) for rx in _compiled(tuple(patterns)) for form in forms)


def mask_table(table: TableInfo, patterns: Iterable[str]) -> TableInfo:
    """A deep copy of ``table`` with the values of its sensitive columns replaced by :data:`MASK`.

    Masked: non-NULL sample-row cells of sensitive columns, and their profiles' ``min``/``max`` (set to
    :data:`MASK` when present) and ``top_values`` (each value replaced, counts kept); such profiles get
    ``masked=True``. NULL cells stay NULL. ``table`` itself is not modified.
    """
    pats = tuple(patterns)
    masked = copy.deepcopy(table)
    if not pats:
        return masked
    sensitive = {c.name for c in masked.columns if is_sensitive(c.name, pats)}
    for column in masked.columns:
        if column.name in sensitive and column.profile is not None:
            profile = column.profile
            profile.min = MASK if profile.min is not None else None
            profile.max = MASK if profile.max is not None else None
            profile.top_values = [(MASK, count) for _value, count in profile.top_values]
            profile.masked = True
    for row in masked.sample_rows:
        for key in row:
            if row[key] is not None and (key in sensitive or is_sensitive(key, pats)):
                row[key] = MASK
    return masked

