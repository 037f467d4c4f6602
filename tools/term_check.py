"""Which column means this word? Options for a question word that no documented column accounts for.

On a database whose columns are codes without documentation (``t_fed_rev``, ``c14``), a question word such as
"revenue" is found nowhere in the schema's text, yet the data is there. Declaring it missing refuses an
answerable question; instead the answer goes ahead and the analyst is asked which column the word means,
offered the likeliest columns with a few stored values each (:func:`retrieval.term_similarity.rank_columns`:
embedding similarity of the word to the column's split name, or the name abbreviating the word). The analyst's
choice becomes a pending synonym record of the knowledge file (:func:`knowledge.files.propose_synonym`), so a
reviewer can approve it and later questions find the column by that word.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from database.schema_reader import quote_identifier
from retrieval.embeddings import get_embedding_function
from retrieval.term_similarity import rank_columns
from tools.base import ToolContext

SAMPLE_VALUES = 3
"""Stored values shown with each offered column."""
MIN_SCORE = 0.15
"""Columns less similar than this to the word (0-1) are not offered."""


class ColumnOption(BaseModel):
    """One column offered for a word: where it is, how close it is (0-1) and a few stored values."""

    table: str
    column: str
    score: float = Field(ge=0.0, le=1.0)
    samples: list[str] = Field(default_factory=list, description=f"Up to {SAMPLE_VALUES} distinct stored values.")


class TermCheck(BaseModel):
    """A question word no documented column accounts for, and the columns that may hold it (best first)."""

    term: str
    options: list[ColumnOption] = Field(default_factory=list)

    def prompt(self) -> str:
        """The question put to the analyst, e.g. "Which column means 'revenue'? t_fed_rev (e.g. 10, 12) or ..."."""
        shown = " or ".join(f"{o.table}.{o.column}" + (f" (e.g. {', '.join(o.samples)})" if o.samples else "")
                            for o in self.options)
        return f"Which column means '{self.term}'? {shown}" if shown else f"No column seems to hold '{self.term}'."


def _samples(ctx: ToolContext, table: str, column: str) -> list[str]:
    """Up to :data:`SAMPLE_VALUES` distinct non-null values of ``table.column`` (read-only; [] on any error)."""
    col, tab = quote_identifier(column, ctx.db.dialect), quote_identifier(table, ctx.db.dialect)
    res = ctx.db.run_query(f"SELECT DISTINCT {col} FROM {tab} WHERE {col} IS NOT NULL", row_cap=SAMPLE_VALUES)
    return [str(r[0])[:40] for r in res.rows[:SAMPLE_VALUES]] if res.ok else []


def term_checks(ctx: ToolContext, words: list[str], tables: list[str], *, per_word: int = 3) -> list[TermCheck]:
    """A :class:`TermCheck` for each of ``words`` with up to ``per_word`` columns of ``tables`` (all if empty).

    Without an index or an embedding model the checks carry no options (the words are still reported).
    Never raises.
    """
    catalog = ctx.catalog() if ctx.store is not None else None
    checks = []
    for word in words:
        options: list[ColumnOption] = []
        if catalog is not None:
            try:
                ranked = rank_columns(word, catalog, get_embedding_function(ctx.settings), tables=tables, k=per_word)
            except Exception:  # noqa: BLE001 - a missing embedding model must not stop the answer
                ranked = []
            options = [ColumnOption(table=t, column=c, score=min(1.0, max(0.0, s)), samples=_samples(ctx, t, c))
                       for t, c, s in ranked if s >= MIN_SCORE]
        checks.append(TermCheck(term=word, options=options))
    return checks
