"""``nl2sql eval``: run configurations side by side on the same questions, score them and report.

Runs are resumable and optionally parallel; they are scored (:mod:`eval.scoring`), summarized with confidence
intervals (:mod:`eval.summary`) and written to the report (:mod:`eval.report`).

A run directory holds ``<config>.jsonl`` (one line per answered question; a rerun skips those), ``run.json``
(what was run), ``summary.json`` and ``report.md`` / ``report.html``. The evaluation has its own Chroma store
(``<state_dir>/eval/chroma`` unless ``--chroma``), so the few-shot examples of the disjoint split never mix
with the app's.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field
from tqdm import tqdm

from agent.context import AgentDeps
from agent.graph import AgentGraph, build_graph
from agent.outcome import Outcome
from agent.runner import ask
from core.llm import LLMProvider
from core.local_server import ensure_local_server
from core.settings import Settings
from database.connection import Database
from eval.baseline import single_shot
from eval.configs import EvalConfig, parse_configs
from eval.datasets import EvalItem, load_demo, load_spider, load_table, select
from eval.report import write_report
from eval.run_files import load_log
from eval.scoring import score_item
from eval.splits import example_split
from retrieval.embeddings import get_embedding_function
from retrieval.examples_store import prepare_examples, sync_example_records
from retrieval.indexing import index_database
from retrieval.store import ChromaStore, VectorStore
from tools.registry import default_registry

log = logging.getLogger(__name__)


def load_dataset(kind: str, path: str | None, split: Literal["all", "dev", "test"] = "all") -> list[EvalItem]:
    """The whole dataset of ``demo``, ``spider`` or ``file``.

    ``demo`` is the bundled gold set, ``spider`` a folder with dev.json and ``file`` a CSV/JSONL (see
    :func:`eval.datasets.load_table`). ``split`` keeps the ``dev`` or ``test`` half of the demo gold set
    (:mod:`eval.demo_split`); the other datasets have only ``all``.

    Raises:
        ValueError: ``--path`` missing for spider/file, or a split other than ``all`` for them.
    """
    if kind == "demo":
        return load_demo(Path(path) if path else None, split)
    if split != "all":
        raise ValueError(f"--split {split} applies to --dataset demo only")
    if not path:
        raise ValueError(f"--path is required with --dataset {kind}")
    return load_spider(Path(path)) if kind == "spider" else load_table(Path(path))


def prepare_store(store: VectorStore, settings: Settings, all_items: list[EvalItem], evaluated: list[EvalItem],
                  *, per_db: int, seed: int, answered: list[EvalItem] | None = None,
                  example_joins: bool = True) -> dict[str, int]:
    """Bring each evaluated database's index (tables, values) up to date and make its examples the disjoint split.

    The index is synced on every run, not only built once per store: the sync embeds only documents whose
    content changed (:func:`retrieval.indexing.index_database`), so a run whose settings change the documents
    (``retrieval.opaque_value_hints``, ``retrieval.sample_rows``...) is measured on them, not on the documents
    an earlier run with other settings left in a shared ``--chroma`` folder. Its examples are exactly the split of :func:`eval.splits.example_split` over ``evaluated``; with
    ``answered`` (a subset of it) only the databases of those questions are indexed and given examples. The
    examples are indexed first, so that ``retrieval.example_joins`` reads their joins; ``example_joins=False``
    (a run with a configuration that uses no examples, which shares the index) turns that setting off, so no
    configuration sees joins from examples it is not given. Returns the number of examples per indexed ``db_id``.
    """
    first = {it.db_id: it for it in evaluated}
    files = {db_id: settings.with_database(it.database_url).resolved_examples_path() for db_id, it in first.items()}
    split = example_split(all_items, evaluated, files=files, per_db=per_db, seed=seed)
    needed = {it.db_id for it in answered} if answered is not None else set(first)
    counts = {}
    for db_id, item in first.items():
        if db_id not in needed:
            continue
        db_settings = settings.with_database(item.database_url)
        if not example_joins:
            db_settings = db_settings.model_copy(update={"retrieval": db_settings.retrieval.model_copy(
                update={"example_joins": False})})
        db = Database.from_settings(db_settings)
        good, _ = prepare_examples(db, split.get(db_id, []), use_drafts=settings.knowledge.use_drafts)
        sync_example_records(store, db.key, good)
        index_database(db, store, db_settings, progress=False)
        counts[db_id] = len(good)
    return counts


UNREACHABLE = "LLM endpoint unreachable"
"""Text of :mod:`core.llm`'s error for a connection failure."""


class EndpointDownError(RuntimeError):
    """The LLM endpoint stopped answering during a run.

    Nothing was recorded for the question, so rerunning the same command resumes there.
    """


def infrastructure_failure(outcome: Outcome) -> bool:
    """True when an answer failed because the LLM endpoint was unreachable (not the agent's fault).

    Such a question is not recorded, so a resumed run asks it again.
    """
    return outcome.status == "error" and UNREACHABLE in (outcome.answer or "")


@dataclass
class ConfigRunner:
    """Runs one configuration over questions, writing one JSONL line per answered question.

    Deps and graph are made per database (built once, shared by worker threads).
    """

    config: EvalConfig
    settings: Settings
    store: VectorStore
    llms: LLMProvider
    judge_llms: LLMProvider | None
    log_path: Path
    _agents: dict[str, tuple[AgentDeps, AgentGraph]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def agent(self, item: EvalItem) -> tuple[AgentDeps, AgentGraph]:
        """Dependencies and compiled graph for ``item``'s database under this configuration."""
        with self._lock:
            if item.database_url not in self._agents:
                cfg = self.config.apply(self.settings.with_database(item.database_url))
                deps = AgentDeps(cfg, Database.from_settings(cfg), self.store, self.llms, default_registry())
                self._agents[item.database_url] = (deps, build_graph())
            return self._agents[item.database_url]

    def answer(self, item: EvalItem) -> dict[str, Any]:
        """Answer and score one question, append its line to the log; returns the record.

        Raises:
            EndpointDownError: the LLM endpoint was unreachable (the question is not recorded).
        """
        deps, graph = self.agent(item)
        if self.config.single_shot:
            outcome = single_shot(deps.db, deps.llms, item.question)
        else:
            outcome = ask(deps, item.question, graph=graph)
        if infrastructure_failure(outcome):
            raise EndpointDownError(f"{item.qid}: {outcome.answer}; stopped; rerun the same command to "
                                    "resume once the endpoint answers")
        row = score_item(item, outcome, deps.db, deps.settings, config=self.config.name, judge_llms=self.judge_llms)
        with self._lock, self.log_path.open("a") as fh:
            fh.write(json.dumps(row, default=str) + "\n")
        return row

    def run(self, items: list[EvalItem], workers: int = 1) -> list[dict[str, Any]]:
        """Every item not yet in the log (resumable), ``workers`` at a time; all records in item order."""
        done = load_log(self.log_path)
        todo = [it for it in items if it.qid not in done]
        if done:
            log.warning("%s: resuming, %d of %d already answered", self.config.name, len(items) - len(todo),
                        len(items))
        bar = tqdm(total=len(todo), desc=self.config.name, unit="q")
        if workers <= 1:
            for it in todo:
                done[it.qid] = self.answer(it)
                bar.update(1)
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                futures = {pool.submit(self.answer, it): it for it in todo}
                for fut in as_completed(futures):
                    done[futures[fut].qid] = fut.result()
                    bar.update(1)
        bar.close()
        return [done[it.qid] for it in items if it.qid in done]


def judge_provider(settings: Settings, model: str | None, base_url: str | None,
                   overrides: dict[str, BaseChatModel] | None) -> LLMProvider:
    """The LLMs with the ``judge`` role pointed at the evaluation's judge model when one is given."""
    update = {k: v for k, v in (("model", model), ("base_url", base_url)) if v}
    judged = settings.model_copy(update={"judge": settings.judge.model_copy(update=update)}) if update else settings
    return LLMProvider(judged, overrides)


class EvalRequest(BaseModel):
    """What to evaluate (the options of ``nl2sql eval``; see its ``--help``)."""

    dataset: Literal["demo", "spider", "file"] = Field("demo", description="Which dataset loader reads ``path``.")
    split: Literal["all", "dev", "test"] = Field("all", description="Half of the demo gold set: all, dev or test "
                                                 "(``eval.demo_split``).")
    path: str | None = Field(None, description="Spider folder or CSV/JSONL file (None: the bundled demo set).")
    configs: str = Field("with_examples", description="Comma-separated configuration names, or ``all``.")
    limit: int | None = Field(None, ge=1, description="First N questions (after ``sample``).")
    sample: int | None = Field(None, ge=1, description="Random sample of N questions (with ``seed``).")
    seed: int = Field(0, description="Seed of the sample and of the examples split.")
    per_db: int | None = Field(None, ge=1, description="At most N questions per database (with ``seed``; "
                               "before ``sample``).")
    ids: list[str] | None = Field(None, description="Answer only these question ids of the selection; the few-shot "
                                  "split stays the whole selection's, so the records pair with a full run's.")
    out: str = Field("eval/runs/latest", description="Run directory (resumes what is already there).")
    workers: int = Field(1, ge=1, description="Questions answered in parallel.")
    llm_judge: bool = Field(True, description="LLM-as-judge metric (called only when EX cannot decide).")
    judge_model: str | None = Field(None, description="Model of the evaluation judge (default: the judge role's).")
    judge_base_url: str | None = Field(None, description="Endpoint of the evaluation judge.")
    examples_per_db: int = Field(40, ge=0, description="Few-shot examples per database (disjoint split).")
    chroma: str | None = Field(None, description="Chroma folder (default: ``<state_dir>/eval/chroma``).")
    langsmith: bool = Field(False, description="Upload dataset and experiments to LangSmith afterwards.")


def run_eval(request: EvalRequest, settings: Settings, *,
             llm_overrides: dict[str, BaseChatModel] | None = None,
             report: Callable[[Path], Any] | None = None) -> dict[str, Any]:
    """Run the evaluation ``request`` describes; writes the run directory and returns its summary.

    ``llm_overrides`` replaces models (tests); ``report`` replaces :func:`eval.report.write_report`.

    Raises:
        EndpointDownError: the LLM endpoint became unreachable; answered questions are kept, so the same
            request resumes.
        ValueError: unknown configuration, unreadable dataset, or an id of ``ids`` not in the selection.
    """
    configs = parse_configs(request.configs)
    all_items = load_dataset(request.dataset, request.path, request.split)
    evaluated = select(all_items, limit=request.limit, sample=request.sample, seed=request.seed,
                       per_db=request.per_db)
    unknown = set(request.ids or ()) - {it.qid for it in evaluated}
    if unknown:
        raise ValueError(f"question ids not in the selection: {', '.join(sorted(unknown)[:5])}")
    out = Path(request.out)
    out.mkdir(parents=True, exist_ok=True)
    if settings.uses_local_llm() and not llm_overrides:
        ensure_local_server(settings)
    chroma = Path(request.chroma) if request.chroma else Path(settings.state_dir) / "eval" / "chroma"
    store = ChromaStore(chroma, get_embedding_function(settings))
    wanted = set(request.ids) if request.ids is not None else None
    answered = [it for it in evaluated if it.qid in wanted] if wanted is not None else evaluated
    examples = prepare_store(store, settings, all_items, evaluated, per_db=request.examples_per_db, seed=request.seed,
                             answered=answered,  # the split is the whole selection's, so records pair with its run
                             example_joins=all(c.use_examples for c in configs))
    evaluated = answered
    names = [c.name for c in configs]
    meta: dict[str, Any] = {"dataset": request.dataset, "split": request.split, "path": request.path, "sample": request.sample, "seed": request.seed,
            "limit": request.limit, "per_db": request.per_db, "ids": request.ids, "questions": len(evaluated), "configs": names,
            "examples_per_db": examples, "llm_judge": bool(request.llm_judge),
            "models": {r: settings.llm(r).model for r in ("planner", "generator", "judge", "organizer")},
            "judge_model": request.judge_model or settings.judge.model, "started": datetime.now(UTC).isoformat()}
    if (out / "run.json").exists():  # another invocation on the same run directory: keep its configurations
        earlier = json.loads((out / "run.json").read_text()).get("configs", [])
        meta["configs"] = [*earlier, *(c for c in names if c not in earlier)]
    (out / "run.json").write_text(json.dumps(meta, indent=2))
    llms = LLMProvider(settings, llm_overrides)
    judge_llms = judge_provider(settings, request.judge_model, request.judge_base_url, llm_overrides) \
        if request.llm_judge else None
    for config in configs:
        ConfigRunner(config, settings, store, llms, judge_llms, out / f"{config.name}.jsonl").run(
            evaluated, workers=request.workers)
    summary: dict[str, Any] = (report or write_report)(out)
    return summary
