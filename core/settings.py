"""One settings object for the whole application.

Values come, in order of precedence, from: explicit keyword arguments, ``NL2SQL_*`` environment variables
(nested fields use ``__``, e.g. ``NL2SQL_GENERATOR__MODEL``), an optional TOML file (``NL2SQL_CONFIG`` or
``./nl2sql.toml``), then the defaults below. Nodes and tools receive a :class:`Settings` instance; they never
read the environment themselves.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from core.profile import Profile, detect_profile, is_small_model
from core.settings_candidates import (
    CandidateSpec as CandidateSpec,
)
from core.settings_candidates import (
    ConsistencySettings as ConsistencySettings,
)
from core.settings_knowledge import (
    KnowledgeSettings as KnowledgeSettings,
)
from core.settings_rewrites import (
    RewriteSettings as RewriteSettings,
)
from core.settings_sections import (
    DATA_DIR as DATA_DIR,
)
from core.settings_sections import (
    DEMO_DB_PATH as DEMO_DB_PATH,
)
from core.settings_sections import (
    LOCAL_BASE_URL as LOCAL_BASE_URL,
)
from core.settings_sections import (
    LOCAL_HOST as LOCAL_HOST,
)
from core.settings_sections import (
    LOCAL_MODEL_NAME as LOCAL_MODEL_NAME,
)
from core.settings_sections import (
    LOCAL_PORT as LOCAL_PORT,
)
from core.settings_sections import (  # the sections, re-exported: import them from here
    PROJECT_ROOT as PROJECT_ROOT,
)
from core.settings_sections import (
    ROLES as ROLES,
)
from core.settings_sections import (
    STATE_DIR as STATE_DIR,
)
from core.settings_sections import (
    AnswerabilitySettings as AnswerabilitySettings,
)
from core.settings_sections import (
    GenerationSettings as GenerationSettings,
)
from core.settings_sections import (
    LLMSettings as LLMSettings,
)
from core.settings_sections import (
    LocalLLMSettings as LocalLLMSettings,
)
from core.settings_sections import (
    ModelPrice as ModelPrice,
)
from core.settings_sections import (
    RetrievalSettings as RetrievalSettings,
)
from core.settings_sections import (
    Role as Role,
)
from core.settings_sections import (
    UsersSettings as UsersSettings,
)


class Settings(BaseSettings):
    """Application settings; see docs/configuration.md."""

    model_config = SettingsConfigDict(
        env_prefix="NL2SQL_",
        env_nested_delimiter="__",
        extra="ignore",
        toml_file=os.environ.get("NL2SQL_CONFIG", "nl2sql.toml"),
    )

    database_url: str = Field(
        f"sqlite:///{DEMO_DB_PATH}", description="SQLAlchemy URL of the database to question."
    )
    planner: LLMSettings = Field(default_factory=lambda: LLMSettings(max_tokens=300))
    generator: LLMSettings = Field(default_factory=lambda: LLMSettings(max_tokens=600))
    judge: LLMSettings = Field(default_factory=lambda: LLMSettings(max_tokens=200))
    organizer: LLMSettings = Field(default_factory=lambda: LLMSettings(max_tokens=200))
    filter: LLMSettings = Field(default_factory=lambda: LLMSettings(max_tokens=100))
    local_llm: LocalLLMSettings = Field(default_factory=LocalLLMSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    plan_format: Literal["compact", "full"] = Field(
        "compact",
        description="compact: the planner switches the optional steps on or off (~20 output tokens, see "
        "agent.compact_plan); full: it writes every step and its input as JSON (~130 output tokens, ~8 s more on "
        "the local 2-core model).",
    )
    translate_questions: bool = Field(
        True,
        description="Put a French question into English before planning (agent.translate: one short call, only "
        "when tools.coverage.is_french says French); the schema, definitions and examples are English.",
    )
    use_insights: bool = Field(
        False,
        description="Offer the table_insights tool (one extra LLM call) to the planner; off by default because "
        "on the local 1.5B model it costs ~12 s per use.",
    )
    generation: GenerationSettings = Field(default_factory=GenerationSettings)
    answerability: AnswerabilitySettings = Field(default_factory=AnswerabilitySettings)
    row_cap: int = Field(1000, ge=1, description="Maximum rows returned by one query.")
    result_max_bytes: int = Field(16_000_000, ge=10_000, description="Approximate size limit of one query's "
                                  "fetched result in bytes; later rows are dropped with a note.")
    cell_max_chars: int = Field(10_000, ge=100, description="Longer text cells are cut (with a note).")
    query_timeout_s: float = Field(15.0, gt=0, description="Statement timeout in seconds.")
    question_budget_s: float = Field(
        600.0, gt=0, description="Time budget of one question in seconds: no LLM retry starts (and no backoff "
        "waits) past it, so a failing endpoint ends the question with a clear error instead of hanging.")
    state_dir: Path = Field(STATE_DIR, description="Checkpoints, traces and feedback live here.")
    state_url: str = Field(
        "", description="Where checkpoints, traces and feedback live instead of SQLite files under state_dir: a "
        "SQLAlchemy URL, e.g. postgresql+psycopg://user:pass@host/db (NL2SQL_STATE_URL); empty: the files.")
    langsmith_project: str | None = Field(None, description="LangSmith project when tracing is on.")
    examples_path: Path | None = Field(
        None, description="Versioned JSONL file of few-shot examples; default: <stem>.examples.jsonl beside a "
        "SQLite database, when present.")
    mcp_databases: dict[str, str] = Field(
        default_factory=dict, description="Databases the MCP server offers, name -> SQLAlchemy URL; empty: the "
        "configured database_url under its key.")
    knowledge_path: Path | None = Field(
        None, description="YAML knowledge file (metrics, terms, rules, enums, synonyms); default: "
        "<stem>.knowledge.yaml beside a SQLite database.")
    knowledge: KnowledgeSettings = Field(default_factory=KnowledgeSettings)
    prices: dict[str, ModelPrice] = Field(
        default_factory=lambda: {
            LOCAL_MODEL_NAME: ModelPrice(),
            "gpt-4o-mini": ModelPrice(prompt_per_mtok=0.15, cached_prompt_per_mtok=0.075, completion_per_mtok=0.60),
            "gpt-4.1-mini": ModelPrice(prompt_per_mtok=0.40, cached_prompt_per_mtok=0.10, completion_per_mtok=1.60),
            "gpt-4.1": ModelPrice(prompt_per_mtok=2.00, cached_prompt_per_mtok=0.50, completion_per_mtok=8.00),
        },
        description="Price table by model name (USD per 1M tokens; list prices when written, check yours); "
        "models not listed cost 0 in reports and are named there.",
    )
    auto_approve_feedback: bool = Field(
        False, description="A thumbs-up adds the question/SQL pair to the examples store at once instead of "
        "queueing it for review in the developer panel.")
    users: UsersSettings = Field(default_factory=UsersSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Precedence: init kwargs > environment > TOML file > defaults."""
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))

    def llm(self, role: Role) -> LLMSettings:
        """Return the LLM settings of ``role`` (one of :data:`ROLES`)."""
        settings: LLMSettings = getattr(self, role)
        return settings

    def with_database(self, url: str | None) -> Settings:
        """Copy of these settings pointing at ``url`` (unchanged when ``url`` is None)."""
        return self if not url else self.model_copy(update={"database_url": url})

    def is_local(self, role: Role) -> bool:
        """True when ``role`` points at the embedded local server (``local_llm``'s address; may be auto-started)."""
        return self.llm(role).base_url.rstrip("/") == self.local_llm.base_url

    def generation_profile(self) -> Profile:
        """The generator's profile: ``generation.profile``, or detected (:func:`core.profile.detect_profile`)."""
        if self.generation.profile != "auto":
            return self.generation.profile
        return detect_profile(self.generator.model, local_server=self.is_local("generator"))

    def profile_warning(self) -> str | None:
        """A warning when a model known to be small is given the large profile explicitly, else None."""
        small = self.is_local("generator") or is_small_model(self.generator.model)
        if self.generation.profile == "large" and small:
            return (f"The generator {self.generator.model!r} is a small model but runs the large profile "
                    "(concurrent chain-of-thought candidates and a judge), which was 16 EX points below "
                    "single-shot for a 1.5B model; set NL2SQL_GENERATION__PROFILE=small or auto.")
        return None

    def candidate_specs(self) -> list[CandidateSpec]:
        """Candidates to generate: the explicit list, else the list of the generation profile."""
        gen = self.generation
        if gen.candidates:
            return list(gen.candidates)
        return list(gen.candidates_local if self.generation_profile() == "small" else gen.candidates_remote)

    def parallel_candidates(self) -> bool:
        """Whether candidates are generated concurrently (see ``GenerationSettings.parallel``)."""
        if self.generation.parallel is not None:
            return self.generation.parallel
        return self.generation_profile() == "large"

    def cascade_candidates(self) -> bool:
        """Whether candidates are generated as a cascade (see ``GenerationSettings.cascade``)."""
        if self.generation.cascade is not None:
            return self.generation.cascade
        return self.generation_profile() == "small"

    def resolved_examples_path(self) -> Path | None:
        """``examples_path``, else ``<stem>.examples.jsonl`` beside a SQLite database file when it exists."""
        if self.examples_path is not None:
            return Path(self.examples_path)
        if self.database_url.startswith("sqlite:///"):
            db_path = Path(self.database_url.removeprefix("sqlite:///"))
            candidate = db_path.with_name(f"{db_path.stem}.examples.jsonl")
            return candidate if candidate.exists() else None
        return None

    def resolved_knowledge_path(self) -> Path | None:
        """``knowledge_path``, else ``<stem>.knowledge.yaml`` beside a SQLite database file (may not exist yet)."""
        if self.knowledge_path is not None:
            return Path(self.knowledge_path)
        if self.database_url.startswith("sqlite:///"):
            db_path = Path(self.database_url.removeprefix("sqlite:///"))
            return db_path.with_name(f"{db_path.stem}.knowledge.yaml")
        return None

    def cost_usd(self, usage: list[dict[str, Any]]) -> float:
        """Dollar cost of LLM calls, priced by the model each role uses.

        Calls are records with ``role``, ``prompt_tokens``, ``completion_tokens`` and optionally
        ``cached_tokens`` (priced at ``cached_prompt_per_mtok`` where set); prices come from :attr:`prices`
        (unknown models count 0).
        """
        total = 0.0
        for call in usage:
            role = call.get("role")
            price = self.prices.get(self.llm(role).model) if role in ROLES else None
            if price:
                cached = min(call.get("cached_tokens", 0), call.get("prompt_tokens", 0))
                cached_price = (price.prompt_per_mtok if price.cached_prompt_per_mtok is None
                                else price.cached_prompt_per_mtok)
                total += ((call.get("prompt_tokens", 0) - cached) * price.prompt_per_mtok + cached * cached_price
                          + call.get("completion_tokens", 0) * price.completion_per_mtok) / 1e6
        return total

    def uses_local_llm(self) -> bool:
        """True when any role points at the embedded local server."""
        return any(self.is_local(r) for r in ROLES)

    @model_validator(mode="after")
    def _chroma_follows_state_dir(self) -> Settings:
        """A moved ``state_dir`` moves the Chroma folder too, unless ``retrieval.chroma_path`` was set."""
        if "chroma_path" not in self.retrieval.model_fields_set and Path(self.state_dir) != STATE_DIR:
            self.retrieval.chroma_path = Path(self.state_dir) / "chroma"
        if "slot_save_path" not in self.local_llm.model_fields_set and Path(self.state_dir) != STATE_DIR:
            self.local_llm.slot_save_path = Path(self.state_dir) / "slots"
        return self

    @model_validator(mode="after")
    def _roles_follow_local_server(self) -> Settings:
        """Roles left at the default local URL follow ``local_llm``'s host and port when those are moved."""
        if self.local_llm.base_url != LOCAL_BASE_URL:
            for role in ROLES:
                llm = self.llm(role)
                if llm.is_local_default:
                    llm.base_url = self.local_llm.base_url
        return self
