"""How far to trust an answer: a score, a level (verified, likely, unsure) and its reasons, without an LLM call.

The score is a logistic regression over signals the turn already has (:func:`confidence_features`): how many
SQL candidates ran and how many returned the answer's rows (self-consistency), whether a fallback rewrite,
a repair or the verifier made the answer, whether the judge had to choose, an empty or degenerate result, how
many rows came back, the question words no documented column accounts for, the shape of the SQL (joins, set
operations, subqueries).
Its coefficients and the two level thresholds are fitted on evaluation records (label: strict EX) by
``scripts/fit_confidence.py`` and shipped as ``agent/confidence_model.json``; the runtime is plain arithmetic
(no scikit-learn).

Some signals cap the level at likely whatever the score (the model's ``hold_back``): an open term check, a
result of one NULL/0 row, and a column read whose name says nothing and that has no description (``c14``; what it
holds was guessed from its values; not one approved examples read, tools.example_glossary), or question words no readable column of the tables read accounts for while
the SQL reads none of those tables' such columns (it may have missed what was asked; tools.opaque_reads), or a column
that stores numbers or dates as text ordered or compared alphabetically (tools.text_order; not in the fitted score, as
the gold queries of the development sets order such columns the same way), or an answer that shows one column twice
(:func:`repeated_output`; weight 0 as well: too rare to fit). On the
abbreviated wide copies (2026-12-05, recorded runs) verified answers of the first kind were right 6 times in 8;
holding back the second kind as well took the verified answers of four runs (409 answers, one of them on
questions the signal was not designed on) from 52 right in 61 to 37 in 37
(``benchmarks/results/2026-12-05-unread-terms/``). A join on a link no stated foreign key makes, on a database that
states some (tools.join_links), is a feature (``unstated_joins``) and a reason, with weight 0 and no cap: capping
such answers at likely would have removed 18 verified answers, 17 of them right, and a refit that weighs it
(-1.33) gained +0.002 AUROC [-0.003, +0.008] on 6,011 recorded answers but took Spider dev 200's verified answers
from 89.1% to 85.8% right (``benchmarks/results/2026-12-07-unstated-joins/``). How unsure the model was of the
SQL it wrote (``surprise``: minus the mean log-probability of its tokens) is recorded from 2026-12-07 and has
weight 0 until enough answers carry it to fit (``benchmarks/results/2026-12-07-token-surprise/``).

Only answers get a confidence: an ``error`` outcome, a clarification, a follow-up question or a refusal has
none (:func:`assess` returns None), since there is no result to be right or wrong.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import sqlglot
import sqlglot.expressions as exp
from pydantic import BaseModel, Field

MODEL_PATH = Path(__file__).with_name("confidence_model.json")
"""The shipped model (written by ``scripts/fit_confidence.py``)."""

Level = Literal["verified", "likely", "unsure"]

RESCUE_STRATEGIES = frozenset({"relaxed", "literal", "as_of", "unasked", "intersected",
                               "anti_joined"})
"""Candidate strategies of the model-free fallback rewrites (the ``rescue`` phase of rewrites.pipeline)."""
REPAIR_STRATEGIES = frozenset({"repair", "verifier", "column_choice"})
"""Candidate strategies of SQL written again after an error or a verifier's finding (``column_choice``: the
verifier's look-alike column check, tools.column_choice)."""
LONG_RESULT = 20
"""Rows from which the reasons mention the length of the result."""

FEATURES = ("agreement", "ran", "all_agreed", "majority", "no_majority", "single_ran", "failed", "rescued",
            "repaired", "verifier_needed", "verifier_repaired", "judge_called", "judge_score", "empty",
            "degenerate", "rows_log", "rewrites", "term_checks", "approved", "plan_fallback", "joins", "set_ops",
            "subqueries", "guessed_columns", "unread_terms", "text_order", "repeated_output", "unstated_joins",
            "surprise")
"""Names of :func:`confidence_features`, in a fixed order."""


class Confidence(BaseModel):
    """The confidence of one answer (see :func:`assess`)."""

    score: float = Field(description="Estimated probability (0..1) that the answer's rows are right.")
    level: Level = Field(description="verified (score >= the model's verified threshold), likely (>= likely), "
                                     "else unsure.")
    reasons: list[str] = Field(default_factory=list, description="Short phrases naming the signals behind it.")
    features: dict[str, float] = Field(default_factory=dict, description="The signals (confidence_features).")


class ConfidenceModel(BaseModel):
    """Logistic regression on :data:`FEATURES` with the two level thresholds (the JSON of MODEL_PATH)."""

    features: list[str] = Field(description="Feature names, the order of ``coefficients``.")
    coefficients: list[float] = Field(description="One weight per feature (on the raw feature values).")
    intercept: float = Field(0.0, description="Log-odds with every feature 0.")
    verified: float = Field(description="Lowest score called verified (1.0: nothing is).")
    likely: float = Field(description="Lowest score called likely.")
    hold_back: list[str] = Field(
        default_factory=list, description="Features that, when > 0, keep an answer below verified (signals the "
        "fit data may lack, such as open term checks).")
    fitted_on: dict[str, Any] = Field(default_factory=dict, description="Where and how it was fitted.")

    def score(self, features: Mapping[str, float]) -> float:
        """The probability 1 / (1 + exp(-(intercept + sum(coef * feature)))); absent features count as 0."""
        z = self.intercept + sum(c * float(features.get(n, 0.0)) for n, c in zip(self.features, self.coefficients,
                                                                              strict=True))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def level(self, score: float, features: Mapping[str, float]) -> Level:
        """verified, likely or unsure for ``score`` (a :attr:`hold_back` feature caps it at likely)."""
        held = any(features.get(n, 0.0) > 0 for n in self.hold_back)
        if self.verified < 1.0 and score >= self.verified and not held:
            return "verified"
        return "likely" if score >= self.likely else "unsure"


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> ConfidenceModel:
    """The model stored at ``path`` (cached). Raises OSError (unreadable) or pydantic.ValidationError."""
    return ConfidenceModel.model_validate(json.loads(path.read_text(encoding="utf-8")))


_QUOTED = re.compile(r"'(?:[^']|'')*'")
_JOIN = re.compile(r"\bjoin\b", re.IGNORECASE)
_SET_OP = re.compile(r"\b(union|intersect|except)\b", re.IGNORECASE)
_SELECT = re.compile(r"\bselect\b", re.IGNORECASE)


def sql_shape(sql: str | None) -> dict[str, float]:
    """Counts of the shape of ``sql`` outside string literals (all 0 without SQL).

    ``joins``: JOIN keywords; ``set_ops``: UNION, INTERSECT, EXCEPT; ``subqueries``: SELECTs after the first.
    """
    text = _QUOTED.sub("''", sql or "")
    return {"joins": float(len(_JOIN.findall(text))), "set_ops": float(len(_SET_OP.findall(text))),
            "subqueries": float(max(0, len(_SELECT.findall(text)) - 1))}


def repeated_output(sql: str | None, dialect: str = "sqlite") -> list[str]:
    """The expressions the outermost SELECT of ``sql`` shows more than once, aliases aside (``["CUST.NM"]``).

    ``SELECT CUST.FRST_NM, CUST.FRST_NM`` for "first and last names", or one balance twice for "checking and
    savings balances": the question asked for two things and the model wrote one of them twice, usually because
    it did not find the other's column. Of the 5,581 distinct answers recorded in ``benchmarks/results/`` up to
    2026-12-07 the final SQL did so 18 times, none of them right (one was verified). ``[]`` for no SQL, SQL that
    does not parse, ``SELECT *`` and set operations.
    """
    if not sql:
        return []
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
        return []
    if not isinstance(tree, exp.Select):
        return []
    shown = [(e.this if isinstance(e, exp.Alias) else e).sql(dialect=dialect) for e in tree.expressions]
    return sorted({text for text in shown if shown.count(text) > 1 and text != "*"})


_READ = ("sql", "pred_sql", "status", "kind", "agreement", "candidates", "judge", "judge_called", "verifier",
         "verifier_needed", "verifier_repaired", "usage", "rows", "term_checks", "plan_source", "confidence",
         "guessed_columns", "unread_terms", "unread_columns", "text_order", "unstated_joins", "keys_stated")
"""The keys (outcome fields, record keys) the features read."""


def _data(source: Mapping[str, Any] | BaseModel) -> dict[str, Any]:
    """The :data:`_READ` keys of an outcome or record (an outcome's fields are read, not dumped)."""
    if isinstance(source, BaseModel):
        return {k: getattr(source, k) for k in _READ if k in type(source).model_fields}
    return {k: source[k] for k in _READ if k in source}


def _chosen(candidates: list[dict[str, Any]], sql: str | None) -> dict[str, Any]:
    """The candidate that ran whose SQL is the answer's ({} when none matches)."""
    ran = [c for c in candidates if c.get("status") in ("ok", "empty")]
    return next((c for c in ran if sql and c.get("sql") == sql), {})


def _degenerate(rows: list[Any] | None) -> bool:
    """One row whose values are all NULL or 0."""
    return rows is not None and len(rows) == 1 and all(v is None or v == 0 for v in rows[0])


def _surprise(logprob: Any) -> float:
    """Minus a mean token log-probability (nats per token, >= 0); 0 when it is unknown."""
    return max(0.0, -float(logprob)) if isinstance(logprob, int | float) and math.isfinite(logprob) else 0.0


def confidence_features(source: Mapping[str, Any] | BaseModel) -> dict[str, float]:
    """The :data:`FEATURES` of an :class:`agent.outcome.Outcome` (or its dict) or of an evaluation record.

    Both give the same values: an outcome's ``sql``, ``verifier``, ``term_checks`` and ``rows`` are a record's
    ``pred_sql``, ``verifier_needed``/``verifier_repaired`` and the features stored in its ``confidence``;
    ``judge_called`` is a judge call among the LLM calls (``usage``). A record without a stored
    ``confidence`` (written before it existed) has 0 for the signals only an outcome holds (``judge_score``,
    ``degenerate``, ``term_checks``), and one written before 2026-12-05 has 0 ``guessed_columns`` and
    ``unread_terms``, one written before 3bcddf8 (2026-12-07) 0 ``unstated_joins`` (the links no stated key joins,
    counted only when ``keys_stated``), and one whose candidates carry no ``logprob`` 0 ``surprise`` (minus the chosen candidate's mean token log-probability,
    tools.candidate.sql_logprob; 0 as well when the endpoint sends no log-probabilities or a rewrite wrote the SQL). Counts are
    plain numbers, the rest 0/1 except ``agreement`` (0..1) and ``judge_score`` (the judge's best score, 0..1;
    0 without a judge call). The chosen candidate is the first that ran with the answer's SQL (its strategy and
    fired rewrite steps count); ``ran`` counts the candidates with status ok or empty, ``failed`` those with
    error or invalid. ``rows_log`` is ln(1 + the chosen candidate's row count) (0 when unknown): the longer the list, the more room for a row nobody asked for
    or a missing one (on the development records its weight is negative on every set).
    """
    data = _data(source)
    record = "pred_sql" in data
    sql = data.get("pred_sql") if record else data.get("sql")
    candidates = list(data.get("candidates") or [])
    ran = sum(c.get("status") in ("ok", "empty") for c in candidates)
    share = float(data.get("agreement") or 0.0)
    agree = round(share * ran)
    chosen = _chosen(candidates, sql)
    strategy = str(chosen.get("strategy") or "")
    if record:
        needed, repaired = bool(data.get("verifier_needed")), bool(data.get("verifier_repaired"))
        judge_called = bool(data.get("judge_called"))
    else:
        verifier = data.get("verifier") or {}
        needed, repaired = bool(verifier.get("needed")), bool(verifier.get("repaired"))
        judge_called = any(u.get("role") == "judge" for u in data.get("usage") or [])
    features = {
        "agreement": share, "ran": float(ran),
        "all_agreed": float(ran >= 2 and agree == ran),
        "majority": float(ran >= 2 and ran / 2 < agree < ran),
        "no_majority": float(ran >= 2 and agree <= ran / 2),
        "single_ran": float(ran == 1),
        "failed": float(sum(c.get("status") in ("error", "invalid") for c in candidates)),
        "rescued": float(strategy in RESCUE_STRATEGIES),
        "repaired": float(strategy in REPAIR_STRATEGIES),
        "verifier_needed": float(needed), "verifier_repaired": float(repaired),
        "judge_called": float(judge_called),
        "judge_score": 0.0 if record else float((data.get("judge") or {}).get("best_score") or 0.0),
        "empty": float(data.get("status") == "empty"),
        "degenerate": 0.0 if record else float(_degenerate(data.get("rows"))),
        "rows_log": math.log1p(max(0, int(chosen.get("row_count") or 0))),
        "rewrites": float(sum(bool(r.get("fired")) for r in chosen.get("rewrites") or [])),
        "term_checks": 0.0 if record else float(len(data.get("term_checks") or [])),
        "approved": float(strategy == "approved"),
        "plan_fallback": float(data.get("plan_source") == "fallback"),
        **sql_shape(sql),
        "guessed_columns": float(len(data.get("guessed_columns") or [])),
        "unread_terms": float(len(data.get("unread_terms") or [])),
        "text_order": float(len(data.get("text_order") or [])),
        "repeated_output": float(len(repeated_output(sql))),
        "unstated_joins": float(len(data.get("unstated_joins") or []) if data.get("keys_stated") else 0),
        "surprise": _surprise(chosen.get("logprob")),
    }
    stored = (data.get("confidence") or {}).get("features") if record else None
    if stored:
        features.update({k: float(v) for k, v in stored.items() if k in features})
    return features


def answered(source: Mapping[str, Any] | BaseModel) -> bool:
    """True for an answer with a result (status ok or empty, kind answer): the outcomes that get a level."""
    data = _data(source)
    return data.get("status") in ("ok", "empty") and (data.get("kind") or "answer") == "answer"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def reasons(features: Mapping[str, float]) -> list[str]:
    """Short phrases for the signals present in ``features`` (a :func:`confidence_features` dict)."""
    ran = int(features.get("ran", 0))
    agree = round(features.get("agreement", 0.0) * ran)
    out = []
    if features.get("all_agreed"):
        out.append(f"{ran} of {ran} independent SQL candidates returned the same rows")
    elif features.get("majority"):
        out.append(f"most candidates agreed ({agree} of {ran} returned the same rows)")
    elif features.get("no_majority"):
        out.append(f"the candidates disagreed ({agree} of {ran} agree)")
    elif features.get("single_ran"):
        out.append("only one SQL candidate ran: nothing to compare it with")
    failed = int(features.get("failed", 0))
    if failed:
        out.append(f"{_plural(failed, 'candidate', 'candidates')} failed to run")
    if features.get("approved"):
        out.append("an approved example's SQL was reused")
    if features.get("rescued"):
        out.append("a fallback rewrite produced the answer")
    if features.get("repaired"):
        out.append("the answer comes from a query written again after an error")
    if features.get("verifier_repaired"):
        out.append("the verifier repaired the query")
    if features.get("judge_called"):
        score = features.get("judge_score", 0.0)
        out.append("a judge chose between different results" + (f" (best score {score:.2f})" if score else ""))
    if features.get("empty"):
        out.append("the result is empty")
    if features.get("degenerate"):
        out.append("the result is one row of NULL or 0")
    rows = round(math.expm1(features.get("rows_log", 0.0)))
    if rows >= LONG_RESULT:
        out.append(f"a long result ({rows} rows) is harder to get exactly right")
    terms = int(features.get("term_checks", 0))
    if terms:
        out.append(f"{_plural(terms, 'question word matches', 'question words match')} no documented column")
    guessed = int(features.get("guessed_columns", 0))
    if guessed:
        one = guessed == 1
        out.append(f"the SQL reads {_plural(guessed, 'column', 'columns')} whose name says nothing and that "
                   f"{'has' if one else 'have'} no description: what {'it holds' if one else 'they hold'} was "
                   "guessed from stored values")
    unread = int(features.get("unread_terms", 0))
    if unread:
        out.append(f"{_plural(unread, 'word', 'words')} of the question {'has' if unread == 1 else 'have'} no "
                   "readable column in the tables read, and the SQL reads none of their columns whose names say "
                   "nothing: it may have missed what was asked")
    if features.get("text_order"):
        out.append("the SQL orders or compares a column that stores numbers or dates as text, alphabetically")
    unstated = int(features.get("unstated_joins", 0))
    if unstated:
        out.append(f"the SQL joins on {_plural(unstated, 'link', 'links')} no foreign key of the database states: "
                   "the link was assumed")
    if features.get("repeated_output"):
        out.append("the answer shows the same column twice: the question may ask for two different things")
    joins = int(features.get("joins", 0))
    if joins:
        out.append(f"the SQL joins {joins + 1} tables")
    if features.get("set_ops"):
        out.append("the SQL combines queries (UNION, INTERSECT or EXCEPT)")
    if features.get("subqueries"):
        out.append("the SQL nests a subquery")
    if features.get("plan_fallback"):
        out.append("the planner failed: the standard plan was used")
    return out


def assess(source: Mapping[str, Any] | BaseModel, model: ConfidenceModel | None = None) -> Confidence | None:
    """The :class:`Confidence` of an outcome (or evaluation record); None when it is not an answer.

    ``model`` defaults to the shipped one (:func:`load_model`). None for an ``error`` outcome, a
    clarification, a follow-up question or a refusal (see :func:`answered`).
    """
    if not answered(source):
        return None
    model = model or load_model()
    features = confidence_features(source)
    score = model.score(features)
    return Confidence(score=round(score, 3), level=model.level(score, features), reasons=reasons(features),
                      features=features)
