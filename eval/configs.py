"""The evaluation configurations, run side by side on the same questions (after the seed's protocol).

No_Examples, With_Examples, No_Knowledge, Divide-and-Conquer only, Query-Plan only, and the single-shot baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.settings import CandidateSpec, Settings


@dataclass(frozen=True)
class EvalConfig:
    """One configuration: how the settings change and whether the agent or the single-shot baseline answers.

    Fields: ``name`` (CLI and file name), ``description``, ``use_examples`` (few-shot retrieval from the
    disjoint example split), ``use_knowledge`` (approved business definitions, when the database has a knowledge
    file), ``candidates`` (candidate list text, see :meth:`CandidateSpec.parse_list`; None
    keeps the configured profile), ``single_shot`` (one call with the whole schema instead of the agent).
    """

    name: str
    description: str
    use_examples: bool = True
    use_knowledge: bool = True
    candidates: str | None = None
    single_shot: bool = False

    def apply(self, settings: Settings) -> Settings:
        """``settings`` changed for this configuration."""
        retrieval = settings.retrieval.model_copy(update={"use_examples": self.use_examples,
                                                          "use_knowledge": self.use_knowledge})
        update: dict[str, object] = {"retrieval": retrieval}
        if self.candidates:
            update["generation"] = settings.generation.model_copy(
                update={"candidates": CandidateSpec.parse_list(self.candidates), "cascade": False})
        return settings.model_copy(update=update)


CONFIGS: dict[str, EvalConfig] = {c.name: c for c in (
    EvalConfig("with_examples", "the agent as configured; few-shot examples from a disjoint split"),
    EvalConfig("no_examples", "the agent without few-shot examples", use_examples=False),
    EvalConfig("no_knowledge", "the agent with examples but without business definitions", use_knowledge=False),
    EvalConfig("dc_only", "one Divide-and-Conquer CoT candidate (CHASE-SQL), with examples", candidates="dc:0"),
    EvalConfig("qp_only", "one Query-Plan CoT candidate (CHASE-SQL), with examples", candidates="qp:0"),
    EvalConfig("single_shot", "baseline: whole schema + 3 sample rows per table, one call, SQL only",
               use_examples=False, use_knowledge=False, single_shot=True),
)}


def parse_configs(text: str) -> list[EvalConfig]:
    """``"with_examples,single_shot"`` -> configurations, in the given order; ``"all"`` gives every one.

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    names = list(CONFIGS) if text.strip() == "all" else [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONFIGS]
    if unknown or not names:
        raise ValueError(f"unknown configuration(s) {unknown or text!r}; choose from {', '.join(CONFIGS)} or all")
    return [CONFIGS[n] for n in names]
