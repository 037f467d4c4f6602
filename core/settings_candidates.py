"""Settings of SQL candidates: the prompt strategy of each and the self-consistency rule that says how many to write.

Read through :mod:`core.settings` (``Settings.generation.candidates_*`` and ``Settings.generation.consistency``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Strategy = Literal["direct", "plain", "divide_and_conquer", "query_plan"]
"""SQL generation prompts: ``direct`` (SQL only, as JSON, with every hint), ``plain`` (SQL only, as free text, with
the question alone: the single-shot prompt's reading, a second opinion that is not led by the join, value and
insight hints), ``divide_and_conquer`` and ``query_plan`` chain-of-thought (CHASE-SQL, Pourreza et al. 2024)."""

SHORT_NAMES: dict[str, Strategy] = {"qp": "query_plan", "dc": "divide_and_conquer", "direct": "direct",
                                    "plain": "plain"}


class CandidateSpec(BaseModel):
    """One SQL candidate to generate: its prompt strategy and sampling temperature."""

    strategy: Strategy = Field(description="Prompt strategy of this candidate.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature of this candidate.")

    @classmethod
    def parse_list(cls, text: str) -> list[CandidateSpec]:
        """Parse ``"qp:0,dc:0.7,direct,plain"`` (strategy[:temperature], comma-separated; ``qp``/``dc`` short).

        Raises:
            ValueError: unknown strategy or bad temperature.
        """
        specs = []
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, temp = part.partition(":")
            strategy = SHORT_NAMES.get(name, name)
            if strategy not in SHORT_NAMES.values():
                raise ValueError(f"unknown candidate strategy {name!r}; use direct, plain, qp or dc")
            specs.append(cls(strategy=strategy, temperature=float(temp) if temp else 0.0))
        if not specs:
            raise ValueError("no candidate given")
        return specs


class ConsistencySettings(BaseModel):
    """Adaptive self-consistency over execution results (the cascade of the small generation profile).

    Candidates are written in the order of the profile's list; each one that runs and returns rows is a vote
    for its result (results compared order- and alias-insensitively, as the evaluation compares them). Writing
    stops once ``agree`` votes name the same result, or at the end of the list, or when the question's soft
    time budget is spent; the largest group wins (ties: the earlier candidate's group, then the judge).
    Self-consistency over execution results: SLM-SQL (Sheng & Xu 2025) on the same 1.5B base model; the adaptive
    stop follows Adaptive-Consistency (Aggarwal et al. 2023).
    """

    agree: int = Field(
        2, ge=1, le=8, description="Votes that must name the same result before the cascade stops; 1 = stop at "
        "the first candidate that returns rows (no self-consistency).")
    majority_skips_judge: bool = Field(
        True, description="When one result has a strict majority of at least two votes, it is the answer without "
        "an LLM judge call; the judge scores only ties.")
    plain_max_tokens: int = Field(
        200, ge=16, le=2000, description="Completion cap of a ``plain`` candidate (free-text SQL, no grammar).")
