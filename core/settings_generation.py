"""The ``generation`` section of :class:`core.settings.Settings`: candidates, the vote, repairs and rewrite steps.

Import it from :mod:`core.settings`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from core.settings_candidates import CandidateSpec, ConsistencySettings
from core.settings_rewrites import RewriteSettings, lift_flat_flags


class GenerationSettings(BaseModel):
    """Candidates, judge and verifier (CHASE-SQL-style generation with selection and repair)."""

    candidates_remote: list[CandidateSpec] = Field(
        default_factory=lambda: [
            CandidateSpec(strategy="divide_and_conquer", temperature=0.0),
            CandidateSpec(strategy="divide_and_conquer", temperature=0.7),
            CandidateSpec(strategy="query_plan", temperature=0.0),
            CandidateSpec(strategy="query_plan", temperature=0.7),
        ],
        description="Candidates when the generator is a remote endpoint (concurrent calls are cheap there).",
    )
    candidates_local: list[CandidateSpec] = Field(
        default_factory=lambda: [
            CandidateSpec(strategy="whole_schema", temperature=0.0),
            CandidateSpec(strategy="direct", temperature=0.0),
            CandidateSpec(strategy="plain", temperature=0.0),
            CandidateSpec(strategy="query_plan", temperature=0.0),
            CandidateSpec(strategy="divide_and_conquer", temperature=0.0),
        ],
        description="Candidates on the embedded 2-core model, in cascade order: later ones are written only "
        "while the earlier results disagree or fail (generation.consistency), and ties go to the earliest, so the "
        "whole-schema candidate (skipped for schemas above generation.consistency.whole_schema_max_tokens) "
        "decides a split vote; every output token costs ~45-65 ms "
        "and parallel slots add little throughput (see docs/benchmarks.md).",
    )
    candidates: list[CandidateSpec] | None = Field(
        None, description="Explicit candidate list; overrides the profiles' lists above."
    )
    profile: Literal["auto", "small", "large"] = Field(
        "auto",
        description="Generation profile by model capability (core.profile): small = the cascade of "
        "candidates_local, large = candidates_remote judged; auto = small for the embedded server or a model "
        "whose name says it is small (at most 10B parameters, or a known small family), else large.",
    )
    parallel: bool | None = Field(
        None,
        description="Generate candidates concurrently; None = automatic: yes for the large profile, no for "
        "the small one (e.g. the embedded 2-core model, where parallel slots barely add throughput and each slot must first process "
        "the schema prompt itself: sequential candidates reuse one slot's prompt cache).",
    )
    cascade: bool | None = Field(
        None,
        description="Generate candidates in order and stop once generation.consistency.agree of them return the "
        "same rows (later candidates are tie-breakers and fallbacks); None = automatic: on for the small profile, "
        "where each extra candidate costs ~2-10 s on the embedded model (see docs/benchmarks.md), off for the "
        "large profile (all candidates, judged).",
    )
    consistency: ConsistencySettings = Field(
        default_factory=ConsistencySettings, description="Adaptive self-consistency: how many cascade "
        "candidates must agree on a result before the cascade stops, and when a majority skips the judge.")
    link_opaque_columns: bool = Field(
        True, description="Before the candidates, ask the model once which column named like c14 (no words, no "
        "description) holds each question word no readable name accounts for, and show the links to the "
        "hint-taking candidates (tools.opaque_columns). No call on schemas without such columns.",
    )
    link_readable_choices: bool = Field(
        True, description="Offer the readable columns of the prompt's tables (names only) as choices of the "
        "opaque-column link too, so a word a readable column holds (gender in SEX, weight in WT) can be linked "
        "to it instead of to an opaque column; such links are not shown to the candidates (tools.opaque_columns). "
        "Measured 2026-12-07 on 79 unread abbreviated questions that make the call (scripts/replay_links.py): "
        "links right 46 of 89 -> 37 of 52; live, without examples, on the 34 whose links changed: 1 won, 0 lost, "
        "the same calls.",
    )
    missing_column_choice: bool = Field(
        True, description="When a candidate's query fails because no table has a column of the name it wrote "
        "(GST_LST_NM beside GST_FST_NM) and its table has columns named like c20, ask the model which of those "
        "(stored values shown) or of the table's other readable non-key columns the name meant, one call per "
        "missing name (at most three), and read them when the query then runs, before any repair "
        "(tools.missing_column). No call on schemas without such columns or on other errors. Measured 2026-12-07: "
        "26 of 154 recorded failing candidates become gold-matching queries; live, without examples, on the 12 "
        "abbreviated questions a re-vote of recorded runs said it changes: 10/12 against 6/12, 4 won, 0 lost.",
    )
    column_choice: bool = Field(
        True, description="After selection, when the answer reads a readable column for a question word no "
        "readable name accounts for, in a table that has columns named like c14, ask the model once which of "
        "those columns holds the word (stored values shown) and read the one it picks when the query still "
        "returns rows (tools.column_choice). No call on schemas without such columns.",
    )
    range_check: bool = Field(
        True, description="At selection, leave a candidate out of the vote when it compares a column with a number "
        "outside that column's stored values (smallest..largest) while another candidate that returned rows "
        "compares the same number with a column whose stored values reach it (tools.number_ranges; one MIN/MAX "
        "query per compared column, cached). No model call.",
    )
    stated_joins_vote: bool = Field(
        True, description="At selection, when no result holds more than half of the candidates that returned rows, "
        "leave out of the vote the candidates that join on a link no stated foreign key makes (declared, in the "
        "metadata file or approved in review) while a candidate that does not ran, on a database that states keys "
        "(tools.join_links). No model call. Replayed 2026-12-07 on 77 recorded runs (5,349 answers): 21 answers "
        "changed, 4 won, 0 lost; leaving such candidates out whatever the vote: 8 won, 15 lost.",
    )
    link_opaque_hold_back: Literal["never", "while_rows", "while_readable_rows"] = Field(
        "while_readable_rows", description="When the cascade holds the opaque-column links (and their call) back "
        "from a hint-taking candidate after the first: ``never``; ``while_rows``: while every earlier candidate "
        "returned rows; ``while_readable_rows``: while every earlier candidate returned rows and its SQL read no "
        "opaque column (one that did had to guess what the column holds; tools.cascade). Measured 2026-12-04 "
        "on abbreviated questions that make the links call: ``while_readable_rows`` acted on 19 of 48 questions "
        "no run had seen (0 won, 0 lost; 40% fewer LLM calls on them) and, composed from recorded runs, on 27 of "
        "59 (0 won, 0 lost); ``while_rows`` also held the links back after a candidate that read an opaque column "
        "and lost 1 of 59 (0 won). Measured 2026-12-05 on 137 such questions outside those: ``never`` won 3 and "
        "lost 1 (two wins read no linked column) for 13% more calls.",
    )
    link_synonym_similarity: float = Field(
        0.55, ge=0.0, le=1.01, description="A question word at least this similar (cosine, the retrieval "
        "embedding) to a readable table or column name counts as named, so opaque-column linking does not ask "
        "about it (tools.question_terms). Above 1: spelling alone decides.",
    )
    reuse_approved: bool = Field(
        True, description="Offer a user-approved example's SQL as the first candidate when the question is a "
        "paraphrase of it (tools.reuse: literal, shape and entity guards, then one short model check). On the "
        "learning set: paraphrases 24/24 after approval, near misses reused 2 of 16.",
    )
    reuse_min_score: float = Field(
        0.5, ge=0.0, le=1.0, description="Least cosine similarity of the approved example's question for reuse.",
    )
    rewrites: RewriteSettings = Field(
        default_factory=RewriteSettings, description="One switch per deterministic SQL rewrite step, in pipeline "
        "order (rewrites.pipeline); the flat generation.<step> names of earlier versions are still read.")
    reasoning_max_chars: int = Field(
        240, ge=40, le=4000, description="Cap on a candidate's chain-of-thought (characters, grammar-enforced)."
    )
    judge_threshold: float = Field(
        0.6, ge=0.0, le=1.0, description="Verifier repairs when the judge's best normalised score is below this."
    )
    verifier_retries: int = Field(2, ge=0, le=5, description="Repair attempts of the verifier.")
    fallback_budget_s: float | None = Field(
        None, gt=0, description="Soft time budget of a question in seconds: once it has run this long, no further "
        "cascade candidate or verifier repair starts and the best result so far is the answer (the p95 latency "
        "lever; scripts/simulate_budget.py replays it on evaluation records). None: no budget.")
    probe_limit: int = Field(3, ge=0, le=10, description="Read-only probe queries per repair attempt.")
    repair_errors: bool = Field(
        True, description="In the cascade, a candidate whose dry run fails with a database error is followed by "
        "a repair that sees the error and probe results, in place of the next fresh candidate (same number of "
        "calls; tools.generation).")
    repairs_in_a_row: int = Field(
        1, ge=1, le=8, description="At most this many repairs follow each other in the cascade: when a repair's "
        "dry run fails too, the next candidate is fresh (the next strategy of the list, which never saw the failed "
        "query) instead of a repair of the repair. Measured 2026-11-26: chains of repairs of one failing query "
        "(often the same SQL again) took 41 of 276 wide-set questions (15 right), never writing the plain "
        "candidate on 29.")

    @model_validator(mode="before")
    @classmethod
    def _flat_rewrite_switches(cls, data: Any) -> Any:
        """Flat rewrite switches (``generation.fix_literals``) move under ``rewrites`` with a DeprecationWarning."""
        return lift_flat_flags(data)

    def with_rewrites(self, **switches: bool) -> GenerationSettings:
        """A copy with the named rewrite steps switched (``with_rewrites(fix_literals=False)``).

        Raises:
            ValueError: a name that is no rewrite step.
        """
        unknown = sorted(set(switches) - set(RewriteSettings.model_fields))
        if unknown:
            raise ValueError(f"unknown rewrite step(s) {unknown}")
        return self.model_copy(update={"rewrites": self.rewrites.model_copy(update=switches)})
