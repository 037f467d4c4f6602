"""Referential search: resolve names, tickers and codes in a question to exact database values.

Index side (:mod:`retrieval.value_index`, re-exported here: :func:`build_value_index`, :func:`index_values`):
the distinct values of the text columns that identify things - keys, codes, names, low-to-mid cardinality
categories (at most 5,000 values, average length <= 40 characters; dates, numbers, long free text and
sensitive columns are skipped) - go to the ``values_index`` collection, one record per (table, column, value)
with metadata ``db``, ``table``, ``column``, ``value``, ``id`` (the row's single-column primary key when the
value is unique in its column, else ``""``), ``id_column`` and ``siblings`` (JSON: the row's other unique text
columns, e.g. TICKER and ISIN next to CO_NM, so "Apple" and "AAPL" land on the same EQ_ID).

Search side (:func:`search_values`): mentions of the question (:func:`retrieval.value_matching
.extract_mentions`) are scored against an in-memory candidate list (rapidfuzz; tickers exact) and against the
embeddings (``store.query`` on ``values_index``); options that are no plausible entity for their mention
(a common word inside a longer value, a word naming a table or column: :mod:`retrieval.value_plausibility`)
are dropped; the best non-overlapping mentions win; when a mention's
top options are within :data:`AMBIGUITY_MARGIN` points, one call to the small ``filter`` model picks among
them (:func:`choose_options`), otherwise no LLM is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from core.llm import LLMError, LLMProvider, UsageLog, chat, invoke_structured
from retrieval.store import VALUES_INDEX, Hit, VectorStore
from retrieval.value_index import DbValues, ValueEntry, build_value_index, index_values, load_values
from retrieval.value_matching import Mention, extract_mentions
from retrieval.value_plausibility import FREE_TEXT_VALUES, plausible

__all__ = ["ValueMatch", "build_value_index", "choose_options", "index_values", "search_values"]

MIN_SCORE = 80.0
"""A mention needs an option scoring at least this much (0-100) to be returned."""
STRONG = 95.0
"""Matches at least this strong (exact, name without legal suffix, near spelling) prefer longer mentions."""
AMBIGUITY_MARGIN = 3.0
"""Options within this many points of a mention's best option make it ambiguous (filter model decides)."""
MAX_OPTIONS = 4
"""At most this many options are shown to the filter model per ambiguous mention."""
EMBED_MIN = 0.80
"""Cosine similarity a ``values_index`` hit needs to count as a candidate."""
EMBED_K = 4
"""Nearest values fetched per embedded mention."""
EMBED_MAX_QUERIES = 8
"""At most this many mentions per question are embedded (each is one embedding + one vector query)."""
_KIND_RANK = {"quoted": 3, "caps": 2, "ticker": 1, "ngram": 0}


@dataclass
class ValueMatch:
    """One resolved mention: the exact database value it refers to and where that value lives.

    Attributes:
        mention: the question's words (``"Apple"``).
        value: the exact stored value, case and spelling as in the database (``"Apple Inc."``).
        table, column: where the value is stored.
        id: the row's single-column primary key value (``1001``) when the value is unique in its column.
        score: match strength, 0-100 (100 = exact, ~97 = name without legal suffix, >=80 fuzzy/embedding).
        id_column: the primary-key column ``id`` comes from (``"EQ_ID"``).
        siblings: other identifying columns of that row (``{"TICKER": "AAPL", "ISIN": "US0378331005"}``).
        also: other ``TABLE.COLUMN`` holding the same exact value (e.g. a foreign-key copy of a code).
        source: "exact", "fuzzy", "embedding", or "filter" when the filter model chose among close options.
    """

    mention: str
    value: str
    table: str
    column: str
    id: str | int | float | None
    score: float
    id_column: str | None = None
    siblings: dict[str, str] = field(default_factory=dict)
    also: list[str] = field(default_factory=list)
    source: str = "fuzzy"

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (all attributes)."""
        return {
            "mention": self.mention, "value": self.value, "table": self.table, "column": self.column,
            "id": self.id, "score": round(self.score, 1), "id_column": self.id_column,
            "siblings": dict(self.siblings), "also": list(self.also), "source": self.source,
        }

    def describe(self) -> str:
        """One line for prompts: ``"Apple" -> EQ_MSTR.CO_NM = 'Apple Inc.' (EQ_ID 1001; TICKER 'AAPL')``."""
        notes = []
        if self.id is not None and self.id_column and self.id_column != self.column:
            notes.append(f"{self.id_column} {_literal(self.id)}")
        notes += [f"{col} {_literal(val)}" for col, val in list(self.siblings.items())[:2]]
        if self.also:
            more = f" +{len(self.also) - 3} more" if len(self.also) > 3 else ""
            notes.append("also in " + ", ".join(self.also[:3]) + more)
        tail = f" ({'; '.join(notes)})" if notes else ""
        return f'"{self.mention}" -> {self.table}.{self.column} = {_literal(self.value)}{tail}'


def _literal(value: Any) -> str:
    """SQL literal text: numbers bare, strings single-quoted with quotes doubled."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


@dataclass
class _Option:
    """Entries of one mention that denote the same thing (same exact value, or same table row)."""

    score: float
    members: list[tuple[float, int]]
    source: str

    def primary(self, entries: list[ValueEntry]) -> int:
        """Best member: highest score, then a row id, then the value being the key itself, and so on.

        After those: the smaller table (master data before transactions), then by name.
        """
        def rank(member: tuple[float, int]) -> tuple[float, bool, bool, int, str]:
            e = entries[member[1]]
            return (-member[0], e.id is None, e.column != e.id_column, e.rows, f"{e.table}.{e.column}")
        return min(self.members, key=rank)[1]


def _options(mention: Mention, scores: dict[int, tuple[float, str]], data: DbValues) -> list[_Option]:
    """Group scored entries into options, best first (exact-case spelling wins ties)."""
    ordered = sorted(scores.items(), key=lambda kv: -kv[1][0])
    options: list[_Option] = []
    for i, (score, source) in ordered:
        e = data.entries[i]
        if e.value == mention.text:
            score += 0.5  # same spelling and case as in the question
        for option in options:
            rows = {(data.entries[j].table, data.entries[j].id) for _s, j in option.members}
            values = {data.entries[j].value for _s, j in option.members}
            if e.value in values or (e.id is not None and (e.table, e.id) in rows):
                option.members.append((score, i))
                option.score = max(option.score, score)
                break
        else:
            options.append(_Option(score, [(score, i)], source))
    return sorted(options, key=lambda o: -o.score)


def _span_rank(item: tuple[Mention, list[_Option]]) -> tuple[float, ...]:
    """Order in which mentions claim their span.

    Strong matches (>= :data:`STRONG`) longest first ("Bank of America" before "America"), then weaker ones
    by score ("Tesla" before "Tesla and Nvidia").
    """
    mention, options = item
    strong = options[0].score >= STRONG
    return (-strong, -mention.n_words if strong else 0, -round(options[0].score), -mention.n_words,
            -_KIND_RANK[mention.kind], mention.start)


def _embedding_scores(
    mentions: Sequence[Mention], fuzzy: dict[Mention, dict[int, float]], store: VectorStore,
    db_key: str, data: DbValues,
) -> dict[Mention, dict[int, float]]:
    """Cosine matches (score = 100 x cos) of up to :data:`EMBED_MAX_QUERIES` mentions.

    Mentions are not tickers, not overlapping a mention with an exact or core-name hit, half of their words
    capitalised or known values' words; quoted and capitalised mentions first, then longer ones.
    """
    solved = [m for m in mentions if max(fuzzy[m].values(), default=0.0) >= 97.0]
    pending = [m for m in mentions if m.kind != "ticker" and not any(m.overlaps(s) for s in solved)
               and data.candidates.anchored(m)]
    pending.sort(key=lambda m: (-_KIND_RANK[m.kind], -m.n_words, m.start))
    found: dict[Mention, dict[int, float]] = {}
    for mention in pending[:EMBED_MAX_QUERIES]:
        hits: list[Hit] = store.query(VALUES_INDEX, mention.text, EMBED_K, where={"db": db_key})
        for hit in hits:
            key = (str(hit.metadata.get("table")), str(hit.metadata.get("column")), hit.document)
            if hit.score >= EMBED_MIN and key in data.position:
                found.setdefault(mention, {})[data.position[key]] = round(100.0 * hit.score, 1)
    return found


def _plausible(mention: Mention, entry: ValueEntry, data: DbValues, schema: frozenset[str], question: str) -> bool:
    """:func:`retrieval.value_plausibility.plausible` for ``entry``, knowing whether its column is free text."""
    free_text = data.column_sizes().get((entry.table, entry.column), 0) > FREE_TEXT_VALUES
    return plausible(mention, entry.value, schema, free_text=free_text, question=question)


def search_values(
    question: str,
    db_key: str,
    store: VectorStore,
    *,
    limit: int = 5,
    llms: LLMProvider | None = None,
    usage: UsageLog | None = None,
    use_embeddings: bool = True,
    schema: frozenset[str] = frozenset(),
) -> list[ValueMatch]:
    """Resolve the values a question mentions to exact database values of ``db_key``.

    Args:
        question: the user's question (any language works for fuzzy matching; mentions are found in it).
        db_key: :attr:`database.connection.Database.key` of an indexed database.
        store: the vector store holding ``values_index`` (see :func:`build_value_index`).
        limit: at most this many matches (the strongest mentions).
        llms: the filter model (role ``"filter"``); when ``llms`` is None, ambiguous mentions take their
            top-ranked option (no LLM call).
        usage: the question's usage log.
        use_embeddings: also match mentions by embedding similarity (one vector query per embedded mention).
        schema: normalised words of the database's table and column names
            (:func:`retrieval.value_plausibility.schema_words`); mentions made only of them are not values.

    Returns:
        At most ``limit`` :class:`ValueMatch`, one per mention, in question order; ``[]`` when nothing matches
        or the database has no value index. Filter failures (LLMError) fall back to the top option.
    """
    data = load_values(store, db_key)
    if not data.entries or not question.strip():
        return []
    mentions = extract_mentions(question)
    fuzzy = {m: data.candidates.score(m) for m in mentions}
    embedded = _embedding_scores(mentions, fuzzy, store, db_key, data) if use_embeddings else {}
    ranked: list[tuple[Mention, list[_Option]]] = []
    for mention in mentions:
        scores = {i: (s, "exact" if s >= 100.0 else "fuzzy") for i, s in fuzzy[mention].items()}
        for i, s in embedded.get(mention, {}).items():
            if s > scores.get(i, (0.0, ""))[0]:
                scores[i] = (s, "embedding")
        options = [o for o in _options(mention, scores, data)
                   if _plausible(mention, data.entries[o.primary(data.entries)], data, schema, question)]
        if options and options[0].score >= MIN_SCORE:
            ranked.append((mention, options))
    ranked.sort(key=_span_rank)
    chosen: list[tuple[Mention, list[_Option]]] = []
    for mention, options in ranked:  # a repeated mention (same words) is resolved once
        if len(chosen) < limit and not any(mention.overlaps(m) or mention.norm == m.norm for m, _o in chosen):
            chosen.append((mention, options))
    chosen.sort(key=lambda mo: mo[0].start)
    close = [[o for o in opts if opts[0].score - o.score <= AMBIGUITY_MARGIN][:MAX_OPTIONS]
             for _m, opts in chosen]
    picks: list[int | None] = [None] * len(chosen)
    ambiguous = [k for k, opts in enumerate(close) if len(opts) > 1]
    if ambiguous and llms is not None:
        items = [(chosen[k][0].text, [_describe_option(o, data) for o in close[k]]) for k in ambiguous]
        answers = choose_options(question, items, llms, usage or UsageLog())
        for k, pick in zip(ambiguous, answers, strict=True):
            picks[k] = pick
    return [
        _to_match(mention, close[k][picks[k] or 0], data, "filter" if picks[k] is not None else None)
        for k, (mention, _opts) in enumerate(chosen)
    ]


def _describe_option(option: _Option, data: DbValues) -> str:
    e = data.entries[option.primary(data.entries)]
    return f"{e.table}.{e.column} = {_literal(e.value)}"


def _to_match(mention: Mention, option: _Option, data: DbValues, source: str | None) -> ValueMatch:
    e = data.entries[option.primary(data.entries)]
    also = sorted({f"{data.entries[j].table}.{data.entries[j].column}" for j in data.by_value[e.value]}
                  - {f"{e.table}.{e.column}"})
    return ValueMatch(
        mention=mention.text, value=e.value, table=e.table, column=e.column, id=e.id,
        score=round(min(100.0, option.score), 1), id_column=e.id_column, siblings=dict(e.siblings), also=also,
        source=source or option.source,
    )


FILTER_SYSTEM = """You link phrases of a database question to stored values. For each item, pick the option
the phrase refers to in this question. Reply with JSON: {"choices": [<option number of item 1>, ...]}"""


class FilterChoices(BaseModel):
    """Structured output of the filter model: one option number (1-based) per ambiguous item."""

    choices: list[int] = Field(max_length=8, description="Option number chosen for each item, in order.")


def choose_options(
    question: str, items: Sequence[tuple[str, Sequence[str]]], llms: LLMProvider, usage: UsageLog
) -> list[int | None]:
    """Ask the ``filter`` model, in one call, which option each ambiguous mention means.

    Args:
        question: the user's question.
        items: ``(mention, option descriptions)`` pairs (at most 8 are asked; the rest get None).
        llms: provider of the ``filter`` model.
        usage: the question's usage log (the call is recorded there).

    Returns:
        One 0-based option index per item, or None where the reply is missing, out of range or the call failed
        (LLMError after its retries): callers then keep their top-ranked option.
    """
    asked = list(items)[:8]
    lines = [f"Question: {question}"]
    for n, (mention, options) in enumerate(asked, start=1):
        lines.append(f'Item {n}: "{mention}"')
        lines += [f"  {k}) {text}" for k, text in enumerate(options, start=1)]
    lines.append("JSON:")
    try:
        reply = invoke_structured(llms, "filter", chat(FILTER_SYSTEM, "\n".join(lines)), FilterChoices, usage,
                                label="value filter")
    except LLMError:
        return [None] * len(items)
    picks: list[int | None] = []
    for n, (_mention, options) in enumerate(items):
        pick = reply.choices[n] - 1 if n < len(reply.choices) and n < len(asked) else -1
        picks.append(pick if 0 <= pick < len(options) else None)
    return picks
