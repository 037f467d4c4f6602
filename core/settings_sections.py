"""The parts of :class:`core.settings.Settings`: paths, the local server's address, and one model per section.

Each section (an LLM role, the embedded server, retrieval, generation, answerability, users, prices) is a
Pydantic model with every field documented (generation's lives in :mod:`core.settings_generation`);
:mod:`core.settings` assembles them and reads the environment.
Import them from :mod:`core.settings`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr

from core.settings_generation import GenerationSettings as GenerationSettings

PROJECT_ROOT = Path(__file__).resolve().parent.parent
"""Repository root (the folder holding ``pyproject.toml``)."""

DATA_DIR = PROJECT_ROOT / "data"
DEMO_DB_PATH = DATA_DIR / "markets" / "markets.sqlite"
STATE_DIR = PROJECT_ROOT / ".nl2sql"
"""Per-checkout state: Chroma indexes, checkpoints, traces, feedback (git-ignored)."""

LOCAL_HOST = "127.0.0.1"
LOCAL_PORT = 8765
LOCAL_BASE_URL = f"http://{LOCAL_HOST}:{LOCAL_PORT}/v1"
LOCAL_MODEL_NAME = "qwen2.5-coder-1.5b-instruct"

Role = Literal["planner", "generator", "judge", "organizer", "filter"]
ROLES: tuple[Role, ...] = ("planner", "generator", "judge", "organizer", "filter")


class LLMSettings(BaseModel):
    """Connection and sampling settings of one LLM role (an OpenAI-compatible chat endpoint)."""

    model: str = Field(LOCAL_MODEL_NAME, description="Model name sent to the endpoint.")
    base_url: str = Field(LOCAL_BASE_URL, description="OpenAI-compatible base URL, ending in /v1.")
    api_key: SecretStr = Field(SecretStr("sk-local"), description="API key; never logged or displayed.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    max_tokens: int = Field(512, ge=1, description="Cap on completion tokens per call.")
    timeout_s: float = Field(180.0, gt=0, description="Per-request timeout in seconds.")
    max_retries: int = Field(
        1, ge=0, description="Retries on malformed structured output or non-transient transport errors."
    )
    transient_retries: int = Field(
        3, ge=0, le=10, description="Retries, with exponential backoff, on transient endpoint errors (429, 5xx, "
        "connection refused/reset, timeouts); never past the question's time budget (question_budget_s).")
    retry_backoff_s: float = Field(
        0.5, ge=0.0, description="First backoff wait in seconds (doubles per retry, with jitter; a 429's "
        "Retry-After is honoured).")
    retry_max_wait_s: float = Field(8.0, ge=0.0, description="Longest single backoff wait in seconds.")
    logprobs: bool = Field(
        True, description="Ask the endpoint for each written token's log-probability (OpenAI's ``logprobs``; "
        "llama.cpp, vLLM and OpenAI send them). The SQL candidates keep the mean over their SQL's tokens, a signal "
        "of how sure the model was (agent.confidence). Turn off for an endpoint that rejects the parameter.")

    @property
    def is_local_default(self) -> bool:
        """True when this role points at the default address of the embedded local server."""
        return self.base_url.rstrip("/") == LOCAL_BASE_URL


class LocalLLMSettings(BaseModel):
    """The embedded llama.cpp server (xllamacpp) that serves the default local model."""

    model_path: Path = Field(
        Path.home() / ".cache" / "nl2sql" / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        description="Where the assembled GGUF file lives.",
    )
    host: str = Field(LOCAL_HOST, description="Bind address; loopback only.")
    port: int = Field(LOCAL_PORT, description="TCP port of the OpenAI-compatible server.")
    n_parallel: int = Field(4, ge=2, description="Parallel decoding slots.")
    ctx_size: int = Field(16384, ge=2048, description="Total context tokens, shared by the slots.")
    n_threads: int = Field(2, ge=1, description="CPU threads for decoding.")
    auto_start: bool = Field(
        True, description="Start the server when a role uses the local default endpoint."
    )
    startup_timeout_s: float = Field(180.0, gt=0, description="How long to wait for the health check.")
    cache_ram_mib: int = Field(
        2048, ge=0, description="Host-RAM budget of llama.cpp's cross-slot prompt cache in MiB (0: off); it keeps "
        "the schema prefixes of several databases and roles after their slot moved on.")
    slot_save_path: Path | None = Field(
        STATE_DIR / "slots", description="Folder of saved prompt-prefix KV caches (llama.cpp slot save/restore; "
        "core/slot_cache.py); the warm-up restores a database's schema prompt from here instead of re-reading it "
        "after a restart (~85 MB per 3k-token prefix). None: off. Follows state_dir unless set.")
    speculative: Literal["off", "ngram", "draft"] = Field(
        "off",
        description=(
            "Speculative decoding: 'ngram' drafts from n-grams already in the context (no extra model), "
            "'draft' from the small draft model at draft_model_path (pip install -r requirements-draft.txt; "
            "nl2sql llm assemble --draft). The main model checks every draft, so outputs stay those of 'off' "
            "(up to llama.cpp's batch-dependent arithmetic). Off by default: both were slower on 2 CPU cores "
            "(docs/benchmarks.md, scripts/bench_speculative.py)."
        ),
    )
    draft_model_path: Path = Field(
        Path.home() / ".cache" / "nl2sql" / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        description="Where the assembled draft GGUF (Qwen2.5-Coder-0.5B-Instruct) lives (speculative='draft').",
    )
    draft_max: int = Field(8, ge=1, le=64, description="Draft model: most tokens drafted per step.")
    draft_min: int = Field(0, ge=0, description="Draft model: fewest tokens drafted per step.")
    draft_p_min: float = Field(
        0.75, ge=0.0, le=1.0, description="Draft model: stop drafting below this token probability."
    )
    ngram_size: int = Field(
        12, ge=1, le=32, description="n-gram speculation: length of the context match that triggers a draft."
    )
    ngram_max: int = Field(16, ge=1, le=64, description="n-gram speculation: most tokens drafted per match.")

    @property
    def base_url(self) -> str:
        """OpenAI base URL of the embedded server at ``host``/``port``, e.g. ``http://127.0.0.1:8765/v1``."""
        return f"http://{self.host}:{self.port}/v1"


class RetrievalSettings(BaseModel):
    """Vector store and retrieval knobs."""

    chroma_path: Path = Field(STATE_DIR / "chroma", description="Persistent Chroma directory.")
    chroma_url: str = Field(
        "", description="Chroma server URL (e.g. http://127.0.0.1:8000); empty: the local chroma_path folder. "
        "Shared by every app replica (retrieval.store_factory).")
    chroma_token: SecretStr | None = Field(
        None, description="Sent as 'Authorization: Bearer <token>' to the Chroma server (for a server or proxy "
        "that checks it); never logged.")
    embedding_model_dir: Path | None = Field(
        None, description="Folder with the MiniLM ONNX model and tokenizer files; default: chromadb's cache."
    )
    top_k_tables: int = Field(8, ge=1, description="At most this many tables when the schema exceeds the budget.")
    schema_token_budget: int = Field(
        2400, ge=200, description="Approximate tokens of schema context; a database that fits is shown whole."
    )
    core_block_fraction: float = Field(
        0.5, ge=0.0, le=1.0,
        description="Share of the schema budget given to the fixed core block (the most connected tables, shown "
        "first for every question so the prompt cache serves them) when the schema exceeds the budget; 0: none.",
    )
    example_glossary: bool = Field(
        True, description="After the schema, list each opaque undocumented column (c7) with the question words "
        "the database's approved examples used it for (tools.example_glossary; model-free, no LLM call). Without "
        "indexed examples nothing changes. Measured 2026-12-05 with examples on 128 new abbreviated questions: "
        "+0.8 [-3.9, +6.3] (6 won, each reading the listed column; 5 lost), +0 calls.")
    opaque_value_hints: bool = Field(
        True, description="Give each opaque undocumented column (c7) its stored values' range ('values 26 to 60') "
        "or most frequent values as comment in every schema listing (retrieval.opaque_hints; one GROUP BY per such "
        "column, no LLM call). Readable and documented columns are unchanged. Measured 2026-12-06 on the abbreviated "
        "copies without examples, 130 new questions: +5.4 [+0.0, +11.5] (11 won, 4 lost), 3.53 -> 3.37 calls; single "
        "shot on 160 questions reading such columns: +6.9 [+1.2, +12.5].")
    infer_joins: bool = Field(
        True, description="On a database that declares no foreign key at all, index the candidate joins found in "
        "its data (a candidate key of one table holding at least 95% of another column's distinct values, with name "
        "evidence for numbers; retrieval.inferred_joins) as its foreign keys, so the schema listing, the join graph "
        "and the join-path hints have them. No LLM call; at most 200 read-only overlap statements per indexing run. "
        "A database that declares any foreign key is indexed as declared.")
    example_joins: bool = Field(
        False, description="With infer_joins, on a database that declares no foreign key, the joins its few-shot "
        "examples' SQL states (JOIN ... ON and WHERE equalities between two tables' columns, pointing at the side "
        "that is a key; retrieval.example_joins) are indexed as foreign keys first, and the data fills the columns "
        "they leave. Read when the database is indexed (nl2sql index after the examples change). Model-free on the "
        "key-dropped abbreviated copies (40 other questions as examples): they hold 86.4% of the gold join "
        "conditions, the data's joins 76.3%, both 92.7%; live with examples on 112 unseen questions -2.7 [-7.1, +1.8] "
        "(2 won, 5 lost; benchmarks/results/2026-12-07-example-joins/), so off.")
    join_paths: Literal["always", "partial", "never"] = Field(
        "always",
        description="Join-path hints ('A.x = B.y' between the question's best tables) in the generator's message: "
        "always; partial - only when the schema is not shown whole (a whole schema already states every foreign "
        "key in its DDL); never. Measured on the wide development set (first 100): partial -2.0 [-7.0, +3.0] "
        "against always - fewer needless joins, but missed bridge tables.",
    )
    top_k_examples: int = Field(3, ge=0, description="Few-shot examples retrieved per question.")
    sample_rows: int = Field(3, ge=0, description="Sample rows per table shown in schema chunks.")
    use_examples: bool = Field(True, description="Retrieve few-shot examples for SQL generation.")
    examples_best_last: bool = Field(
        True, description="Show the few-shot examples least similar first, so the most similar one comes last, "
        "nearest the question (KATE, Liu et al. 2021: reversed order helps; a small model copies what is nearest).",
    )
    use_knowledge: bool = Field(
        True, description="Show the approved business definitions (knowledge file) a question uses to the generator."
    )
    period_hints: bool = Field(
        True, description="With a knowledge file, also resolve the question's time expressions ('October 2025', "
        "'first half of 2025', 'Q3 2024') to ISO date ranges and show them with the definitions "
        "(knowledge.periods).",
    )
    sensitive_patterns: list[str] = Field(
        default_factory=lambda: [
            r"e_?mail",
            r"phone|mobile|(^|_)fax($|_)",
            r"(first|last|full|given|middle|maiden|family|sur|fore|nick|contact|person|user|employee|"
            r"patient|student)_?name|(^|_)(emp|[fl])_?name($|_)",
            r"birth|(^|_)dob($|_)",
            r"address(?!_?id)|(^|_)addr(\d|_|$)|street|postal|post_?code|(^|_)zip",
            r"(^|_)ssn($|_)|social_?security|passport|(^|_)iban($|_)|(account|acct)_?(number|no|num)($|_)|"
            r"(^|_)card($|_)|card_?(number|no|num)|national_?id|tax_?id",
        ],
        description="Regexes (case-insensitive, matched against a column's name and its snake_case form) of "
        "columns whose values are masked in sample rows and profiles (personal data).",
    )


class AnswerabilitySettings(BaseModel):
    """When the assistant answers, asks back or refuses (tools.answerability; BAR-SQL's four outcomes)."""

    enabled: bool = Field(True, description="Check each question before SQL is written (follow-up, clarify, refuse).")
    llm_check: bool = Field(
        True, description="Ask the model (one short call) when some words of the question are found nowhere in the "
        "schema, its documentation, the definitions or the linked values, and refuse or clarify on its verdict. A "
        "refusal counts only when the model names an uncovered word that can name data (tools.coverage). Measured "
        "with scripts/measure_answerability.py --llm: boundary set kind accuracy 59/60; answerable questions "
        "refused: Spider-dev 200 2, demo 59 none, reworded 15 none, French 15 none. Off: such questions are "
        "answered (boundary refusals then go unanswered as refusals).")
    missing_data: Literal["ask", "refuse"] = Field(
        "ask", description="What a question word found nowhere in the schema, its documentation, the definitions, "
        "the linked values or the retrieved examples leads to. ask: answer with the likeliest columns and ask the "
        "analyst which column means the word (options with stored values; the choice is saved as a pending "
        "synonym record; no model call). refuse: the model check below may refuse or clarify. On held-out "
        "real-world databases with undocumented columns (t_fed_rev, c14) refuse turned away 26 of 87 answerable "
        "questions; the cost of ask is that a question about data the database truly lacks gets an answer from "
        "the closest columns, flagged with the words it could not place.")
    common_word_zipf: float = Field(
        5.0, ge=0.0, le=8.0, description="English words at least this frequent (wordfreq Zipf scale) never count as "
        "uncovered (French: this + 0.5).")
    max_tokens: int = Field(120, ge=20, le=1000, description="Completion cap of the answerability call.")
    min_legibility: float = Field(
        0.65, ge=0.0, le=1.0, description="The model check runs only on a schema whose columns are at least this "
        "share legible (named in English words or documented; tools.coverage.schema_legibility): on terse, "
        "undocumented codes a word found nowhere is no evidence of missing data. Measured: Spider dev databases "
        "0.77-1.0, the demo with its data dictionary 0.85, Chinook 0.98, the demo on PostgreSQL without it 0.55.")
    synonym_similarity: float = Field(
        0.55, ge=0.0, le=1.01, description="An uncovered word whose embedding is at least this similar (cosine) to a "
        "table or column name counts as covered: a synonym of the schema ('gender' for Sex), not missing data "
        "(retrieval.term_similarity; scripts/measure_answerability.py). Above 1: off.")


class ModelPrice(BaseModel):
    """Price of one model in US dollars per million tokens (for the evaluation's cost figures)."""

    prompt_per_mtok: float = Field(0.0, ge=0.0, description="USD per 1M prompt (input) tokens.")
    cached_prompt_per_mtok: float | None = Field(
        None, ge=0.0, description="USD per 1M prompt tokens served from the provider's prompt cache; unset: "
        "the same as prompt_per_mtok.")
    completion_per_mtok: float = Field(0.0, ge=0.0, description="USD per 1M completion (output) tokens.")


class UsersSettings(BaseModel):
    """Who uses the app (ui.identity): the user of a browser session and who gets the developer panel."""

    trusted_header: str = Field(
        "", description="Request header a trusted reverse proxy sets to the signed-in user's name, e.g. "
        "X-Forwarded-User; empty: not used. Used when no [auth] (OIDC) section is configured in Streamlit's "
        "secrets; a request without it is refused.")
    default_user: str = Field(
        "local", min_length=1, description="The user when neither OIDC nor a trusted header is configured (also "
        "the user of the CLI and the MCP server).")
    developers: list[str] = Field(
        default_factory=lambda: ["local"], description="User names that see the developer panel (traces, tools, "
        "vector stores, review, knowledge) and the settings page; everyone else gets the chat only.")
