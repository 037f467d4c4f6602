"""Answerability check: answer, or ask back (clarify, follow-up), or refuse, before any SQL is written.

BAR-SQL separates four outcomes of a question: SQL, CLARIFY (ambiguous), FOLLOW-UP (a required parameter is
missing) and REFUSE (the data is not there). :class:`CheckQuestionTool` decides from the evidence the plan has
already gathered, cheaply on answerable questions:

1. **follow_up** (no LLM): a matched knowledge record ``requires`` a parameter the question does not state
   (:mod:`knowledge.parameters`): "top 5 stocks by return" without a period.
2. **clarify** (no LLM): a record matched by its exact phrase lists ``readings`` (an ambiguous word) and the
   question uses none of their distinctive words: "the biggest companies" -> by market cap, by volume...
3. **answer and ask which column** (``answerability.missing_data = "ask"``, the default): when some content words
   of the question are *uncovered* (below), the answer goes ahead and the words that can name data come back as
   :class:`tools.term_check.TermCheck` options (the likeliest columns with stored values), so the analyst can
   say which column means the word. On databases nobody documented (columns such as ``t_fed_rev``, ``c14``) a
   word found nowhere is no evidence of missing data: refusing there turned away about a quarter of the
   answerable questions of held-out real-world databases. No model call is made.
4. **refuse** or **clarify** (``missing_data = "refuse"``) by one short structured LLM call, made only when some
   content words of the question are *uncovered*: found nowhere in the database's table and column names, their documentation and sample
   values, the business definitions, the linked values, nor among very common English words. "Apple's
   price-to-earnings ratio" on a prices database leaves "earnings" and "ratio" uncovered. The model's refusal
   counts only when the data it names as missing includes an uncovered word that can name data (a noun, not
   "founded" or "corresponding"): the 1.5B model refused Spider questions for "horsepower", "Year" or
   "gender" (columns it had been shown); such a verdict is overruled. Word coverage is :mod:`tools.coverage`. A
   word whose embedding is close to a table or column name ("gender" ~ ``Sex``) is a synonym of the schema, not
   an uncovered word (:mod:`retrieval.term_similarity`, ``answerability.synonym_similarity``).

Otherwise the answer goes ahead. The result's ``value`` keeps the evidence, so the trace shows why.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, Field

from core.llm import LLMError, chat, invoke_structured
from database.schema_reader import quote_identifier
from knowledge.files import KnowledgeFileError, agent_knowledge
from knowledge.lookup import STOPWORDS, normalise
from knowledge.parameters import (
    describe,
    has_date,
    has_period,
    mentions_value,
    quantified,
    unstated_entity,
    unstated_time,
    value_columns,
)
from knowledge.records import KnowledgeRecord
from prompts import answerability as prompt
from prompts.schema_prefix import schema_prefix
from retrieval.embeddings import get_embedding_function
from retrieval.term_similarity import nearest_schema_names
from tools.base import Tool, ToolCall, ToolContext, ToolResult
from tools.coverage import (
    can_name_data,
    is_french,
    quoted_words,
    schema_legibility,
    uncovered_terms,
    vocabulary,
    written_forms,
)
from tools.masked_names import stored_as_values, stored_in_masked_columns
from tools.term_check import term_checks

Kind = Literal["answer", "clarify", "follow_up", "refuse"]

class Decision(BaseModel):
    """The model's structured answerability verdict."""

    kind: Literal["answer", "refuse", "clarify"]
    missing: str = Field("", max_length=200)
    readings: list[str] = Field(default_factory=list, max_length=4)


class CheckQuestionArgs(BaseModel):
    """The question, the schema text, the linked value mentions, the matched record ids and definitions."""

    question: str = Field(min_length=1, max_length=2000)
    schema_text: str = ""
    tables: list[str] = Field(default_factory=list)
    mentions: list[str] = Field(default_factory=list)
    matched: list[str] = Field(default_factory=list)
    exact: list[str] = Field(default_factory=list, description="ids matched by a contiguous phrase")
    definitions: str = ""
    value_columns: list[str] = Field(default_factory=list, description="'table.column' of linked values")
    examples_text: str = Field("", description="Questions and SQL of the retrieved (and approved) examples: "
                               "their words count as covered.")


def _missing_parameter(record: KnowledgeRecord, question: str, linked: set[str], ctx: ToolContext) -> str | None:
    """The first requirement of ``record`` that ``question`` does not state (None: all stated)."""
    for req in record.requires:
        if req == "period":
            stated = has_period(question)
        elif req == "date":
            stated = has_date(question)
        else:
            cols = value_columns(req)
            stated = any(f"{t}.{c}".lower() in linked for t, c in cols) or quantified(question, cols) or any(
                _mentions_stored_value(ctx, question, t, c) for t, c in cols)
        if not stated:
            return req
    return None


_DISTINCT: dict[tuple[str, str, str], list[str] | None] = {}


def _mentions_stored_value(ctx: ToolContext, question: str, table: str, column: str) -> bool:
    """True when ``question`` writes one of up to 500 distinct values of ``table.column``.

    The values are read once per database (read-only, guarded). A column that cannot be read counts as stated:
    a wrong name in the knowledge file must not block every question.
    """
    key = (ctx.db.key, table, column)
    if key not in _DISTINCT:
        col, tab = quote_identifier(column, ctx.db.dialect), quote_identifier(table, ctx.db.dialect)
        res = ctx.db.run_query(f"SELECT DISTINCT {col} FROM {tab}", row_cap=500)
        _DISTINCT[key] = [str(r[0]) for r in res.rows if r and r[0] is not None] if res.ok else None
    values = _DISTINCT[key]
    return values is None or mentions_value(question, values)


def _ambiguous(record: KnowledgeRecord, question: str, matched: list[KnowledgeRecord]) -> bool:
    """True when ``record`` lists readings and the question settles none of them.

    A question settles the ambiguity when it names one of the readings' own words, or when it matched some
    other metric record (then that metric is the criterion: "top 3 stocks by dividends").
    """
    if not record.readings or any(r.type == "metric" and r.id != record.id for r in matched):
        return False
    asked = set(normalise(question))
    own = [set(normalise(r)) - set(normalise(" ".join(record.phrases))) - STOPWORDS for r in record.readings]
    return not any(words & asked for words in own)


class CheckQuestionTool(Tool[CheckQuestionArgs]):
    """Returns ``kind="decision"``: ``value = {"kind", "missing", "readings", "evidence"}`` (always ``ok``).

    ``kind`` is answer | clarify | follow_up | refuse; the graph stops before SQL generation unless it is
    ``answer``; with ``answerability.enabled`` off it always is. ``evidence`` has ``uncovered`` (words), ``matched`` (record ids), ``rule`` (which step decided)
    and ``llm`` (the model's verdict, when it was asked).
    """

    name = "check_question"
    result_kind = "decision"
    requires = ("retrieve_schema",)
    description = "decide whether the data can answer the question, or ask back, or refuse (input: the question)"
    Args = CheckQuestionArgs

    def build_args(self, call: ToolCall, ctx: ToolContext) -> CheckQuestionArgs:
        """Evidence from the referenced schema, values and knowledge results."""
        schemas, values, knowledge = (call.referenced(k) for k in ("schema", "values", "knowledge"))
        matches = [m for r in values for m in r.value.get("matches", [])]
        return CheckQuestionArgs(
            question=call.question or call.input,
            schema_text="\n\n".join(r.text for r in schemas),
            tables=[str(t) for r in schemas for t in r.value.get("tables", [])],
            mentions=[str(m.get(k, "")) for m in matches for k in ("mention", "value")],
            value_columns=[f"{m.get('table', '')}.{m.get('column', '')}".lower() for m in matches],
            matched=[str(m[0]) for r in knowledge for m in r.value.get("matches", [])],
            exact=[str(m[0]) for r in knowledge for m in r.value.get("matches", []) if len(m) > 2 and m[2]],
            definitions="".join(r.text for r in knowledge),
            examples_text="\n".join(f"{ex.get('question', '')} {ex.get('sql', '')}" for r in call.referenced("examples")
                                    for ex in r.value.get("examples", [])))

    def run(self, args: CheckQuestionArgs, ctx: ToolContext) -> ToolResult:
        """Follow-up and clarify from the records, refuse or clarify by the model when words are uncovered."""
        started = time.perf_counter()
        cfg = ctx.settings.answerability
        records = self._records(ctx, args.matched)
        evidence: dict[str, Any] = {"matched": [r.id for r in records]}

        def done(kind: Kind, rule: str, missing: str = "", readings: list[str] | None = None) -> ToolResult:
            evidence["rule"] = rule
            value = {"kind": kind, "missing": missing, "readings": readings or [], "evidence": evidence}
            text = kind if kind == "answer" else f"{kind}: {missing or '; '.join(readings or [])}"
            return ToolResult(ok=True, kind="decision", text=text, value=value,
                              latency_s=round(time.perf_counter() - started, 4))

        if not cfg.enabled:
            return done("answer", "check off (answerability.enabled)")
        linked = set(args.value_columns)
        for record in records:
            missing = _missing_parameter(record, args.question, linked, ctx)
            if missing is not None:
                return done("follow_up", f"record {record.id} requires {missing}", describe(missing))
        if unstated_time(args.question):
            return done("follow_up", "the question refers to a time it does not state", describe("period"))
        entity = unstated_entity(args.question, self._entity_words(ctx), {c.split(".")[0] for c in linked})
        if entity is not None:
            return done("follow_up", f"'the {entity}' is never named", f"which {entity.replace('_', ' ')} you mean")
        for record in records:
            if record.id in args.exact and _ambiguous(record, args.question, records):
                base = args.question.rstrip(" ?.")
                return done("clarify", f"record {record.id} is ambiguous",
                            readings=[f"{base}, {r}?" for r in record.readings[:4]])
        known = vocabulary(ctx, records, f"{args.schema_text}\n{args.examples_text}", args.mentions)
        catalog = ctx.catalog() if ctx.store is not None else None
        expander = catalog.expander if catalog is not None else None
        uncovered = uncovered_terms(args.question, known, cfg.common_word_zipf, expander)
        names = stored_in_masked_columns(ctx, args.question, uncovered) if uncovered else set()
        if names:  # a person's name, stored in a masked column: known data, not a missing concept
            evidence["stored_names"] = sorted(names)
            uncovered = [w for w in uncovered if w not in names]
        values = stored_as_values(ctx, args.question, uncovered) if uncovered else set()
        if values:  # a name the value linker missed ('NorthCarolina'): stored data, not a missing concept
            evidence["stored_values"] = sorted(values)
            uncovered = [w for w in uncovered if w not in values]
        uncovered = self._not_synonyms(ctx, uncovered, cfg.synonym_similarity, evidence)
        evidence["uncovered"] = uncovered
        if uncovered and cfg.missing_data == "ask":
            quoted = quoted_words(args.question)
            data_words = [w for w in uncovered if can_name_data(w, french=is_french(args.question)) and w not in quoted]
            written = written_forms(args.question)
            shown = [written.get(w, w) for w in data_words[:2]]
            checks = term_checks(ctx, shown, args.tables) if shown else []
            evidence["term_checks"] = [c.model_dump() for c in checks]
            return done("answer", "uncovered words: answering with the likeliest columns and asking which "
                        "columns mean them (answerability.missing_data = ask)")
        if not uncovered or not cfg.llm_check:
            return done("answer", "all words covered" if not uncovered else "model check off")
        legibility = schema_legibility(catalog) if catalog is not None else 1.0
        evidence["legibility"] = round(legibility, 3)
        if legibility < cfg.min_legibility:
            return done("answer", "the schema's names are terse codes without documentation: an uncovered word "
                        "is no evidence of missing data, answering")
        system = prompt.SYSTEM.format(schema_prefix=schema_prefix(ctx.db.dialect, args.schema_text or "(none)"))
        user = prompt.USER.format(definitions=args.definitions, uncovered=", ".join(uncovered),
                                  question=args.question)
        try:
            verdict = invoke_structured(ctx.llms, "generator", chat(system, user), Decision, ctx.usage,
                                        max_tokens=cfg.max_tokens, label="answerability")
        except LLMError as exc:
            evidence["llm_error"] = str(exc)
            return done("answer", "model check failed: answering")
        evidence["llm"] = verdict.model_dump()
        named = set(normalise(verdict.missing)) & set(uncovered)
        if verdict.kind == "refuse" and not named:
            return done("answer", "the model's missing data is not among the uncovered words: answering")
        if verdict.kind == "refuse" and not any(can_name_data(w, french=is_french(args.question)) for w in named):
            return done("answer", "the model's missing data is a verb or adjective form, not data: answering")
        if verdict.kind == "refuse":
            missing = verdict.missing.strip() or ", ".join(uncovered)
            return done("refuse", "uncovered words; the model found no data for them", missing)
        if verdict.kind == "clarify" and len(verdict.readings) >= 2:
            return done("clarify", "uncovered words; the model sees several readings", readings=verdict.readings)
        return done("answer", "uncovered words; the model says the schema answers")

    @staticmethod
    def _not_synonyms(ctx: ToolContext, words: list[str], threshold: float, evidence: dict[str, Any]) -> list[str]:
        """``words`` less those whose nearest table or column name is at least ``threshold`` similar.

        The nearest names go to ``evidence["nearest"]``; without a catalog or an embedding model every word stays.
        """
        catalog = ctx.catalog() if words and ctx.store is not None and threshold <= 1 else None
        if catalog is None:
            return words
        try:
            nearest = nearest_schema_names(words, catalog, get_embedding_function(ctx.settings))
        except Exception as exc:  # noqa: BLE001 - a missing or broken embedding model must not stop the answer
            evidence["nearest_error"] = str(exc)[:200]
            return words
        evidence["nearest"] = {w: list(v) for w, v in nearest.items()}
        return [w for w in words if w not in nearest or nearest[w][1] < threshold]

    @staticmethod
    def _entity_words(ctx: ToolContext) -> dict[str, str]:
        """Folded singular table names -> table (lower-cased), from the schema catalog."""
        catalog = ctx.catalog() if ctx.store is not None else None
        words: dict[str, str] = {}
        for name in catalog.names if catalog is not None else []:
            folded = normalise(name.replace("_", " "))
            if len(folded) == 1 and folded[0].isalpha() and len(folded[0]) > 2:
                words[folded[0]] = name.lower()
        return words

    @staticmethod
    def _records(ctx: ToolContext, ids: list[str]) -> list[KnowledgeRecord]:
        """The approved records with ``ids`` (in that order) from the knowledge file ([] without one)."""
        path = ctx.settings.resolved_knowledge_path()
        if path is None or not ids:
            return []
        try:
            kb = agent_knowledge(path, ctx.settings.knowledge.use_drafts)
        except KnowledgeFileError:
            return []
        by_id = {r.id: r for r in kb.approved()}
        return [by_id[i] for i in dict.fromkeys(ids) if i in by_id]
