"""Measure speculative decoding on the local server (``local_llm.speculative``: off, ngram, draft) on our outputs.

For each option the script starts one server (child process, port ``--port``, default 8799), sends the
project's own structured-output requests at temperature 0 with ``response_format=json_schema`` (as
``core.llm.invoke_structured`` does through LangChain), then stops the server before the next option:

* ``direct``: the generator's ``{"sql": ...}`` reply (:data:`prompts.generator.DIRECT`),
* ``query_plan``: the generator's ``{"reasoning", "sql"}`` reply (:data:`prompts.generator.QUERY_PLAN`),
* ``plan``: the planner's compact JSON (``{"x":1}``, :data:`prompts.planner.COMPACT_SYSTEM`); only when some
  optional tool is enabled (with none, the default, the app makes no planner call),
* ``plan_full``: the planner's full JSON plan (``plan_format="full"``).

The system prompt is the real one over the demo database (``data/markets/markets.sqlite``, every table's
DDL and sample rows as :func:`retrieval.documents.schema_document` renders them, ~2,500 tokens); the user
prompt carries three few-shot examples from ``markets.examples.jsonl`` (most words in common) and a gold
question. Each system prompt is sent once first (so the cache holds it, as in steady use); then each request
is sent once (the "first call": only the question part is new; its output is the reference) and ``--runs``
times more (fully cached prompt); the report gives the median generated tokens/s, wall seconds and draft acceptance
(``timings.draft_n_accepted / draft_n``) per option and output kind, and whether every output equals the
``off`` output. Results go to ``--out`` as JSON.

Two servers at once thrash 2 cores: before each server start the script waits (polling every 60 s, at most
``--wait-minutes``) until no ``cli.main eval`` or ``bench_latency`` process runs and nothing answers on the
default port 8765 (skipping the option otherwise), and it stops its server and measures the option again when
one of them starts meanwhile (checked before every request).

Usage: ``python scripts/bench_speculative.py [--options off,ngram,draft] [--runs 3] [--questions 3]``.
The draft option needs ``pip install -r requirements-draft.txt`` and ``nl2sql llm assemble --draft``.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from openai.lib._parsing._completions import type_to_response_format_param
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.compact_plan import compact_model  # noqa: E402
from agent.plan import draft_model  # noqa: E402
from core.local_server import LocalLLMServer, LocalServerError, server_root  # noqa: E402
from core.model_files import ModelFileError  # noqa: E402
from core.settings import LOCAL_MODEL_NAME, LocalLLMSettings, Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from prompts import generator as gen_prompt  # noqa: E402
from prompts import planner as planner_prompt  # noqa: E402
from retrieval.documents import schema_document  # noqa: E402
from tools.candidate import SQLAnswer, reasoned_answer_model, system_prompt  # noqa: E402
from tools.registry import default_registry  # noqa: E402

MARKETS = ROOT / "data" / "markets"
QUESTION_IDS = ("m02", "m03", "m10", "m20", "m30")
KINDS = ("direct", "query_plan", "plan", "plan_full")
OTHER_PORT = 8765


def busy_reason() -> str:
    """Why the machine is busy for a benchmark ('' when it is free): an eval, a latency bench, port 8765."""
    reasons = []
    for pattern in ("cli.main eval", "bench_latency"):
        found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
        if found:
            reasons.append(f"{pattern!r} running (pid {', '.join(found)})")
    try:
        with httpx.Client(timeout=3, trust_env=False) as client:
            client.get(f"http://127.0.0.1:{OTHER_PORT}/health")
        reasons.append(f"a server answers on port {OTHER_PORT}")
    except httpx.HTTPError:
        pass
    return "; ".join(reasons)


class Busy(RuntimeError):
    """The machine stayed busy until the deadline: the option is not measured."""


def wait_until_free(deadline: float) -> None:
    """Poll :func:`busy_reason` every 60 s until the machine is free; :class:`Busy` after ``deadline``."""
    while reason := busy_reason():
        if time.monotonic() > deadline:
            raise Busy(f"machine still busy ({reason}); not measured")
        print(f"  waiting: {reason}", flush=True)
        time.sleep(60)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def build_requests(settings: Settings, n_questions: int) -> list[dict[str, Any]]:
    """One request body per (kind, question): messages, response_format and max_tokens as the app sends."""
    db = Database(f"sqlite:///{MARKETS / 'markets.sqlite'}")
    tables = read_schema(db, sample_rows=3)
    schema = "\n\n".join(schema_document(t, db.dialect) for t in tables)
    gen_system = system_prompt(db.dialect, schema)
    gold = {r["id"]: r for r in map(json.loads, (MARKETS / "gold.jsonl").read_text().splitlines())}
    examples = [json.loads(line) for line in (MARKETS / "markets.examples.jsonl").read_text().splitlines()]
    registry = default_registry()
    flags = registry.flags(settings)
    flag_lines = "\n".join(f"- {flag}: {registry.purpose(name)}" for flag, name in flags.items())
    example = json.dumps({f: int(n in ("retrieve_examples", "search_values")) for f, n in flags.items()},
                         separators=(",", ":"))
    compact_system = planner_prompt.COMPACT_SYSTEM.format(flags=flag_lines, example=example)
    full_system = planner_prompt.SYSTEM.format(tools=registry.describe(registry.enabled_names(settings)))
    reasoned = reasoned_answer_model(settings.generation.reasoning_max_chars)
    requests = []
    for qid in QUESTION_IDS[:n_questions]:
        question = gold[qid]["question"]
        nearest = sorted(examples, key=lambda e: -len(_words(e["question"]) & _words(question)))[:3]
        shots = gen_prompt.EXAMPLES_HEADER + "\n\n".join(
            gen_prompt.EXAMPLE.format(question=e["question"], sql=e["sql"]) for e in nearest) + "\n\n"
        parts = {"knowledge": "", "columns": "", "joins": "", "history": "", "examples": shots, "values": "",
                 "insights": "", "question": question}
        planner_user = planner_prompt.USER.format(history="", question=question)
        kinds: dict[str, tuple[str, str, type[BaseModel], int]] = {
            "direct": (gen_system, gen_prompt.DIRECT.format(**parts), SQLAnswer, settings.generator.max_tokens),
            "query_plan": (gen_system, gen_prompt.QUERY_PLAN.format(**parts), reasoned,
                           settings.generator.max_tokens),
            "plan": (compact_system, planner_user, compact_model(tuple(flags)), settings.planner.max_tokens),
            "plan_full": (full_system, planner_user, draft_model(tuple(registry.planned_names())),
                          settings.planner.max_tokens),
        }
        if not flags:  # no optional tool enabled: the app makes no compact planner call
            del kinds["plan"]
        for kind, (system, user, model, max_tokens) in kinds.items():
            requests.append({
                "kind": kind,
                "question": qid,
                "body": {
                    "model": LOCAL_MODEL_NAME,
                    "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
                    "temperature": 0,
                    "max_tokens": max_tokens,
                    "response_format": type_to_response_format_param(model),
                },
            })
    return requests


def send(client: httpx.Client, root: str, body: dict[str, Any]) -> dict[str, Any]:
    """One chat completion: content, wall seconds and llama.cpp's timings (generation, drafts)."""
    started = time.perf_counter()
    resp = client.post(f"{root}/v1/chat/completions", json=body)
    wall = time.perf_counter() - started
    resp.raise_for_status()
    data = resp.json()
    t = data.get("timings", {})
    return {
        "content": data["choices"][0]["message"]["content"],
        "wall_s": wall,
        "predicted_n": t.get("predicted_n", 0),
        "predicted_ms": t.get("predicted_ms", 0.0),
        "tok_s": t.get("predicted_per_second", 0.0),
        "prompt_n": t.get("prompt_n", 0),
        "cache_n": t.get("cache_n", 0),
        "draft_n": t.get("draft_n", 0),
        "draft_accepted": t.get("draft_n_accepted", 0),
    }


def equivalent(a: str, b: str) -> bool:
    """Same text, or the same JSON value (whitespace and key spacing aside)."""
    if a == b:
        return True
    try:
        return bool(json.loads(a) == json.loads(b))
    except ValueError:
        return False


class Interrupted(Exception):
    """Another benchmark or evaluation started while ours ran: its figures are void."""


def run_option(settings: Settings, option: str, requests: list[dict[str, Any]], runs: int,
               deadline: float) -> dict[str, Any]:
    """Run :func:`measure_option`; when another job starts meanwhile, stop, wait until it ends and redo it."""
    while True:
        wait_until_free(deadline)
        try:
            return measure_option(settings, option, requests, runs)
        except Interrupted as exc:
            print(f"[{option}] interrupted ({exc}); server stopped, option will be measured again", flush=True)


def measure_option(settings: Settings, option: str, requests: list[dict[str, Any]],
                   runs: int) -> dict[str, Any]:
    """Start a server with ``option``, send every request 1 + ``runs`` times, stop it; the raw records.

    Raises:
        Interrupted: the machine became busy (checked before every request); the server is stopped at once.
    """
    local = settings.local_llm.model_copy(update={"speculative": option})
    server = LocalLLMServer(settings.model_copy(update={"local_llm": local}))
    started = time.perf_counter()
    with server:
        startup = time.perf_counter() - started
        print(f"[{option}] server healthy after {startup:.1f} s", flush=True)
        root = server_root(server.base_url)
        records = []
        with httpx.Client(timeout=900, trust_env=False) as client:

            def checked(body: dict[str, Any]) -> dict[str, Any]:
                if reason := busy_reason():
                    raise Interrupted(reason)
                return send(client, root, body)

            systems = {json.dumps(r["body"]["messages"][0]): r["body"] for r in requests}
            for body in systems.values():  # prime the prompt cache with each system prompt, as in steady use
                checked({**body, "messages": body["messages"][:1], "max_tokens": 1})
            for req in requests:
                warm = checked(req["body"])
                timed = [checked(req["body"]) for _ in range(runs)]
                rec = {"kind": req["kind"], "question": req["question"], "warm": warm, "runs": timed}
                records.append(rec)
                med = statistics.median(r["tok_s"] for r in timed)
                print(f"  {req['kind']:<10} {req['question']}: {warm['predicted_n']:>3} tok, "
                      f"median {med:5.1f} tok/s, {statistics.median(r['wall_s'] for r in timed):5.2f} s, "
                      f"drafts {timed[0]['draft_accepted']}/{timed[0]['draft_n']}", flush=True)
    return {"option": option, "startup_s": startup, "settings": local.model_dump(mode="json"), "records": records}


def summarize(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per option and kind: median tok/s and wall s over questions x runs, acceptance, same-as-off count."""
    reference = {(r["kind"], r["question"]): r["warm"]["content"]
                 for res in results if res["option"] == "off" for r in res["records"]}
    rows = []
    for res in results:
        for kind in KINDS:
            recs = [r for r in res["records"] if r["kind"] == kind]
            if not recs:
                continue
            timed = [t for r in recs for t in r["runs"]]
            outputs = [(r, t["content"]) for r in recs for t in [r["warm"], *r["runs"]]]
            same = [equivalent(c, reference[(r["kind"], r["question"])])
                    for r, c in outputs if (r["kind"], r["question"]) in reference]
            drafted = sum(t["draft_n"] for t in timed)
            rows.append({
                "option": res["option"],
                "kind": kind,
                "tokens": statistics.median(t["predicted_n"] for t in timed),
                "tok_s": statistics.median(t["tok_s"] for t in timed),
                "wall_s": statistics.median(t["wall_s"] for t in timed),
                "first_wall_s": statistics.median(r["warm"]["wall_s"] for r in recs),
                "acceptance": (sum(t["draft_accepted"] for t in timed) / drafted) if drafted else None,
                "same_as_off": f"{sum(same)}/{len(same)}" if same else "-",
            })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--options", default="off,ngram,draft", help="comma-separated: off, ngram, draft")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per request after the warm-up")
    parser.add_argument("--questions", type=int, default=3, help=f"gold questions (at most {len(QUESTION_IDS)})")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--port", type=int, default=8799)
    parser.add_argument("--draft-max", type=int)
    parser.add_argument("--draft-p-min", type=float)
    parser.add_argument("--ngram-size", type=int)
    parser.add_argument("--ngram-max", type=int)
    parser.add_argument("--wait-minutes", type=float, default=70.0)
    parser.add_argument("--out", type=Path, default=ROOT / ".nl2sql" / "bench" / "speculative.json")
    args = parser.parse_args()
    settings = Settings()  # type: ignore[call-arg]
    tweaks = {k: v for k, v in (("draft_max", args.draft_max), ("draft_p_min", args.draft_p_min),
                                ("ngram_size", args.ngram_size), ("ngram_max", args.ngram_max)) if v is not None}
    local = LocalLLMSettings.model_validate({**settings.local_llm.model_dump(), "port": args.port, **tweaks})
    settings = settings.model_copy(update={"local_llm": local})
    kinds = args.kinds.split(",")
    requests = [r for r in build_requests(settings, args.questions) if r["kind"] in kinds]
    deadline = time.monotonic() + args.wait_minutes * 60
    results = []
    for option in args.options.split(","):
        try:
            results.append(run_option(settings, option, requests, args.runs, deadline))
        except (ModelFileError, LocalServerError, Busy) as exc:
            print(f"[{option}] skipped: {exc}", file=sys.stderr)
    rows = summarize(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"results": results, "summary": rows}, indent=1))
    print("\n| option | output | tokens | tok/s | seconds | first call s | acceptance | same as off |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        acc = f"{r['acceptance']:.0%}" if r["acceptance"] is not None else "-"
        print(f"| {r['option']} | {r['kind']} | {r['tokens']:.0f} | {r['tok_s']:.1f} | {r['wall_s']:.2f} | "
              f"{r['first_wall_s']:.2f} | {acc} | {r['same_as_off']} |")
    print("(medians; 'seconds' over the repeated calls, 'first call' = system prompt cached, question new)")
    print(f"\nraw records: {args.out}")


if __name__ == "__main__":
    main()
