"""Settings of SQL candidates: the prompt strategy of each and the self-consistency rule that says how many to write.

Read through :mod:`core.settings` (``Settings.generation.candidates_*`` and ``Settings.generation.consistency``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Strategy = Literal["whole_schema", "direct", "plain", "divide_and_conquer", "query_plan"]
"""SQL generation prompts: ``whole_schema`` (SQL only, as free text, over the whole schema as DDL with three
sample rows per table: the single-shot prompt, a second schema representation for the vote; see
:mod:`tools.whole_schema`), ``direct`` (SQL only, as JSON, with every hint), ``plain`` (SQL only, as free text,
over the linked listing with the question alone, not led by the join, value and insight hints),
``divide_and_conquer`` and ``query_plan`` chain-of-thought (CHASE-SQL, Pourreza et al. 2024)."""

SHORT_NAMES: dict[str, Strategy] = {"qp": "query_plan", "dc": "divide_and_conquer", "direct": "direct",
                                    "plain": "plain", "whole": "whole_schema"}
FREE_TEXT: frozenset[str] = frozenset({"plain", "whole_schema"})
"""Strategies whose reply is free text cut to its first statement (no JSON grammar)."""


class CandidateSpec(BaseModel):
    """One SQL candidate to generate: its prompt strategy and sampling temperature."""

    strategy: Strategy = Field(description="Prompt strategy of this candidate.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature of this candidate.")

    @classmethod
    def parse_list(cls, text: str) -> list[CandidateSpec]:
        """Parse ``"whole,qp:0,dc:0.7,direct,plain"`` (strategy[:temperature], comma-separated, short names).

        Raises:
            ValueError: unknown strategy or bad temperature.
        """
        specs = []
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, temp = part.partition(":")
            strategy = SHORT_NAMES.get(name, name)
            if strategy not in SHORT_NAMES.values():
                raise ValueError(f"unknown candidate strategy {name!r}; use whole, direct, plain, qp or dc")
            specs.append(cls(strategy=strategy, temperature=float(temp) if temp else 0.0))
        if not specs:
            raise ValueError("no candidate given")
        return specs


class ConsistencySettings(BaseModel):
    """Adaptive self-consistency over execution results (the cascade of the small generation profile).

    Candidates are written in the order of the profile's list; each one that runs and returns rows is a vote
    for its result (results compared order- and alias-insensitively, as the evaluation compares them). Writing
    stops once ``agree`` votes name the same result, or at the end of the list, or when the question's soft
    time budget is spent; the largest group wins (ties: see ``ties``).
    Self-consistency over execution results: SLM-SQL (Sheng & Xu 2025) on the same 1.5B base model; the adaptive
    stop follows Adaptive-Consistency (Aggarwal et al. 2023).
    """

    agree: int = Field(
        2, ge=1, le=8, description="Votes that must name the same result before the cascade stops; 1 = stop at "
        "the first candidate that returns rows (no self-consistency).")
    empty_agree: int = Field(
        3, ge=0, le=8, description="Candidates that ran and returned no rows (and no model-free rescue of theirs "
        "had rows) after which the cascade stops with the empty result, when no candidate has returned rows; 0: "
        "never (every strategy of the list is written). Nothing matching is a common true answer, and two "
        "independent empty results with a third make later ones rarely useful: replayed on recorded development "
        "runs, stopping at the third empty result saved 1.7 calls on each question it acted on.")
    majority_skips_judge: bool = Field(
        True, description="When one result has a strict majority of at least two votes, it is the answer without "
        "an LLM judge call; the judge scores only ties.")
    ties: Literal["auto", "earliest", "judge"] = Field(
        "auto", description="Between result groups of equal size: ``earliest`` keeps the group of the candidate "
        "written first (no LLM call), ``judge`` asks the LLM judge; ``auto`` = earliest when candidates are written "
        "as a cascade (the small profile: on recorded wide-set runs the small model's judge picked right on ties "
        "no more often than the earlier candidate, 9 against 11 of 39), judge when they are written all at once.")
    whole_schema_max_tokens: int = Field(
        6000, ge=500, le=100_000, description="A ``whole_schema`` candidate is written only when the whole schema "
        "as DDL with sample rows is estimated at most this many prompt tokens; larger databases get the linked "
        "listing alone.")
    repair_whole_schema: bool = Field(
        False, description="When the whole-schema candidate's dry run fails, the next turn repairs it (off: the "
        "next turn is the first linked-listing candidate). Replayed on a recorded wide-set run (synonym wording, no "
        "examples, 200 questions): it failed 25 times, its repair failed again 16 times, and the remaining "
        "candidates decided the 9 repaired ones about as well (one question lost, one won); each repair costs "
        "10-40 s on 2 cores.")
    plain_max_tokens: int = Field(
        200, ge=16, le=2000, description="Completion cap of a free-text candidate (``plain``, ``whole_schema``; no grammar).")
