"""Load test of the shared state store: concurrent ``ask`` calls of distinct users from several processes.

    python scripts/load_test.py postgresql+psycopg://user:pass@host/db [--chroma-url http://host:8000]
        [--questions 50] [--processes 2]

Every process builds the agent with *scripted* fake models (``tests/support/scripted_model.py``: no LLM is ever
called, whatever the settings say) on a small generated SQLite shop database, indexed once into a temporary
Chroma folder (or the Chroma server given). Each question is one user (``load-<n>``) asking in a thread of their
own, all at the same time (one thread per question), through the same path as the app: ``ask`` with the
PostgreSQL checkpointer, the run stored with its user, a thumbs up/down recorded, the SQL audited.

Checks, then prints throughput and latency percentiles; exit status 1 when a check fails:

* no question ended in an error;
* each user's conversations (``RunStore.threads(user=...)``) hold exactly their own runs;
* every feedback record is there, under its user; every user has audit rows.

Use an empty or a throwaway state database: the test adds rows and does not delete them.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sqlite3
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent.graph import build_graph  # noqa: E402
from agent.memory import open_checkpointer  # noqa: E402
from agent.runner import ask, build_deps, open_store  # noqa: E402
from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from records.audit import AuditLog  # noqa: E402
from records.feedback import FeedbackStore  # noqa: E402
from records.paths import audit_path, feedback_path, runs_path  # noqa: E402
from records.runs import RunStore, new_thread_id  # noqa: E402
from retrieval.indexing import index_database  # noqa: E402
from tests.support.scripted_model import ScriptedChatModel  # noqa: E402

SHOP_SQL = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
INSERT INTO customers VALUES (1, 'Ana', 'Brazil'), (2, 'Bo', 'Sweden'), (3, 'Caio', 'Brazil');
"""
COUNTRIES = ("Brazil", "Sweden")


def _settings(state_url: str, chroma_url: str, work: Path) -> Settings:
    """Settings of the run: shop database, shared state, no local model, no LLM-based answerability check."""
    return Settings(database_url=f"sqlite:///{work / 'shop.sqlite'}", state_url=state_url, state_dir=work / "state",
                    retrieval={"chroma_path": work / "chroma", "chroma_url": chroma_url},
                    local_llm={"auto_start": False}, answerability={"llm_check": False})


def _models() -> dict[str, Any]:
    """Scripted planner, generator and organizer (replies repeat; no endpoint is called)."""
    def sql(messages: list[Any]) -> dict[str, str]:
        country = "Sweden" if "Sweden" in str(messages[-1].content) else "Brazil"
        return {"reasoning": "filter", "sql": f"SELECT COUNT(*) AS n FROM customers WHERE country = '{country}'"}

    return {"planner": ScriptedChatModel(replies=[{"i": 0}]), "generator": ScriptedChatModel(script=sql),
            "organizer": ScriptedChatModel(replies=[{"text": "The result is shown."}])}


def _worker(job: tuple[str, str, str, list[int]]) -> list[dict[str, Any]]:
    """One process: answer question ``n`` for user ``load-<n>`` for every ``n``, all at once."""
    state_url, chroma_url, work, numbers = job
    settings = _settings(state_url, chroma_url, Path(work))
    runs, feedback = RunStore(runs_path(settings)), FeedbackStore(feedback_path(settings))
    graph = build_graph(checkpointer=open_checkpointer(settings))
    store = open_store(settings)

    def one(n: int) -> dict[str, Any]:
        user = f"load-{n}"
        deps = build_deps(settings, llm_overrides=_models(), store=store)  # scripted models are not thread-safe
        deps.audit = AuditLog(audit_path(settings)).record
        started = time.perf_counter()
        out = ask(deps, f"How many customers are from {COUNTRIES[n % 2]}?", graph=graph,
                  thread_id=new_thread_id(), user=user)
        runs.save_run(out, user=user)
        feedback.record(out, "up" if n % 2 else "down", user=user)
        return {"user": user, "run_id": out.run_id, "status": out.status, "answer": out.answer,
                "seconds": time.perf_counter() - started}

    with ThreadPoolExecutor(max_workers=len(numbers)) as pool:
        return list(pool.map(one, numbers))


def _check(settings: Settings, results: list[dict[str, Any]]) -> list[str]:
    """Problems found in the shared store (empty when everything is there and isolated)."""
    problems = [f"{r['user']}: {r['status']}: {r['answer'][:200]}" for r in results if r["status"] == "error"]
    runs, feedback, audit = (RunStore(runs_path(settings)), FeedbackStore(feedback_path(settings)),
                             AuditLog(audit_path(settings)))
    for r in results:
        user = r["user"]
        seen = [o.run_id for t in runs.threads(user=user) for o in runs.thread_runs(t["id"], user=user)]
        if seen != [r["run_id"]]:
            problems.append(f"{user}: history holds runs {seen}, expected only {r['run_id']}")
        if [f.run_id for f in feedback.find(user=user)] != [r["run_id"]]:
            problems.append(f"{user}: feedback lost or mixed up")
        if not audit.recent(limit=10, user=user):
            problems.append(f"{user}: no audited SQL")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Run the load test; 0 when every check passes, 1 otherwise."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("state_url", help="SQLAlchemy URL of the shared state store (PostgreSQL)")
    parser.add_argument("--chroma-url", default="", help="a Chroma server shared by the processes (default: a folder)")
    parser.add_argument("--questions", type=int, default=50, help="concurrent questions, one user each")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the workers (a pool whose "
                        "worker process died waits forever otherwise)")
    args = parser.parse_args(argv)
    if args.questions < 1 or args.processes < 1:
        parser.error("--questions and --processes must be at least 1")
    work = Path(tempfile.mkdtemp(prefix="nl2sql-load-"))
    with sqlite3.connect(work / "shop.sqlite") as conn:
        conn.executescript(SHOP_SQL)
    settings = _settings(args.state_url, args.chroma_url, work)
    index_database(Database.from_settings(settings), open_store(settings), settings, progress=False)
    numbers = list(range(args.questions))
    jobs = [(args.state_url, args.chroma_url, str(work), numbers[p::args.processes]) for p in range(args.processes)]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(args.processes) as pool:
        try:
            chunks = pool.map_async(_worker, [j for j in jobs if j[3]]).get(timeout=args.timeout)
        except multiprocessing.TimeoutError:
            print(f"FAIL: the workers did not finish within {args.timeout:.0f} s (did a worker process die?)")
            return 1
    results = [r for chunk in chunks for r in chunk]
    wall = time.perf_counter() - started
    problems = _check(settings, results)
    seconds = sorted(r["seconds"] for r in results)
    p95 = statistics.quantiles(seconds, n=20)[-1] if len(seconds) > 1 else seconds[0]
    print(f"{len(results)} questions from {len(results)} users in {args.processes} processes: {wall:.1f} s wall, "
          f"{len(results) / wall:.2f} questions/s; latency median {statistics.median(seconds):.2f} s, "
          f"p95 {p95:.2f} s, max {seconds[-1]:.2f} s")
    for problem in problems:
        print(f"FAIL {problem}")
    print("OK: no errors, histories isolated, no feedback lost" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
