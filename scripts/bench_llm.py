"""Benchmark the local LLM server (Qwen2.5-Coder-1.5B Q4_K_M via xllamacpp) and check the LangChain path.

Prints: (d) start-up time to healthy, (a) prompt/generation tokens per second for one request and for N
concurrent requests (from llama.cpp's ``timings`` and the wall clock), (b) whether a repeated prompt prefix is
served from the prompt cache, (c) that ``ChatOpenAI(...).with_structured_output(..., method="json_schema")``
returns a parsed object and what ``usage_metadata`` looks like.

Usage: ``python scripts/bench_llm.py [--prompt-tokens 1500] [--max-tokens 200] [--concurrency 4]``. Reuses a
server already answering at the configured address; otherwise starts one with ``ensure_local_server`` and
stops it at the end. Takes about two minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.local_server import LocalLLMServer, ensure_local_server, server_root  # noqa: E402
from core.settings import LOCAL_MODEL_NAME, Settings  # noqa: E402

COLUMNS = "id INTEGER PRIMARY KEY, ticker TEXT NOT NULL, trade_date DATE, price NUMERIC(12,4), volume BIGINT"


def schema_prompt(client: httpx.Client, root: str, tokens: int) -> str:
    """Synthetic schema text of about ``tokens`` tokens (measured with the server's /tokenize)."""
    tables = [f"CREATE TABLE market_table_{i} ({COLUMNS}, note_{i} TEXT);" for i in range(400)]
    lo, hi = 1, len(tables)
    while lo < hi:  # smallest table count reaching the target
        mid = (lo + hi) // 2
        n = len(client.post(f"{root}/tokenize", json={"content": "\n".join(tables[:mid])}).json()["tokens"])
        lo, hi = (mid + 1, hi) if n < tokens else (lo, mid)
    return "\n".join(tables[:lo])


def chat(client: httpx.Client, root: str, system: str, user: str, max_tokens: int) -> dict[str, Any]:
    """One chat completion forced to ``max_tokens`` tokens (``ignore_eos``); adds ``wall_s`` to the JSON."""
    body = {
        "model": LOCAL_MODEL_NAME,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "max_tokens": max_tokens,
        "temperature": 0,
        "ignore_eos": True,
    }
    started = time.perf_counter()
    resp = client.post(f"{root}/v1/chat/completions", json=body)
    resp.raise_for_status()
    return {**resp.json(), "wall_s": time.perf_counter() - started}


def fmt(t: dict[str, Any]) -> str:
    return (
        f"prompt {t['prompt_n']} tok (cached {t.get('cache_n', 0)}) in {t['prompt_ms'] / 1000:.1f} s = "
        f"{t['prompt_per_second']:.0f} tok/s; generation {t['predicted_n']} tok in "
        f"{t['predicted_ms'] / 1000:.1f} s = {t['predicted_per_second']:.1f} tok/s"
    )


class SqlAnswer(BaseModel):
    """Structured output used for the LangChain check."""

    sql: str = Field(description="One SQLite SELECT statement.")
    tables: list[str] = Field(description="Tables the query reads.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--prompt-tokens", type=int, default=1500)
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    settings = Settings()  # type: ignore[call-arg]

    started = time.perf_counter()
    server: LocalLLMServer | None = ensure_local_server(settings)
    base_url = f"http://{settings.local_llm.host}:{settings.local_llm.port}/v1"
    root = server_root(base_url)
    if server is None:
        print("(d) start-up: reused the server already running at", base_url)
    else:
        print(
            f"(d) start-up: child server healthy after {time.perf_counter() - started:.1f} s (incl. model check)"
        )
    try:
        with httpx.Client(timeout=900, trust_env=False) as client:
            props = client.get(f"{root}/props").json()
            print(
                f"    slots={props.get('total_slots')} model={props.get('model_alias') or props.get('model_path')}"
            )
            schema = schema_prompt(client, root, args.prompt_tokens)
            user = "List 40 different SQL queries over these tables, one per line."

            one = chat(client, root, f"[run {uuid.uuid4()}] You write SQL.\n{schema}", user, args.max_tokens)
            print(f"(a) 1 request : {fmt(one['timings'])}; wall {one['wall_s']:.1f} s")

            n = args.concurrency
            systems = [f"[run {uuid.uuid4()}] You write SQL.\n{schema}" for _ in range(n)]
            t0 = time.perf_counter()
            with ThreadPoolExecutor(n) as pool:
                results = list(pool.map(lambda s: chat(client, root, s, user, args.max_tokens), systems))
            wall = time.perf_counter() - t0
            total_p = sum(r["timings"]["prompt_n"] for r in results)
            total_g = sum(r["timings"]["predicted_n"] for r in results)
            print(f"(a) {n} concurrent: wall {wall:.1f} s for {total_p} prompt + {total_g} generated tokens")
            for r in results:
                print(f"      {fmt(r['timings'])}; wall {r['wall_s']:.1f} s")
            print(
                f"    aggregate: {total_p / wall:.0f} prompt tok/s + {total_g / wall:.1f} gen tok/s over the wall clock"
            )

            prefix = f"[run {uuid.uuid4()}] You write SQL.\n{schema}"
            cold = chat(client, root, prefix, "Count the rows of market_table_1.", 20)
            warm = chat(client, root, prefix, "Average price per ticker in market_table_2.", 20)
            print(f"(b) cache, cold: {fmt(cold['timings'])}; wall {cold['wall_s']:.1f} s")
            print(f"    cache, warm: {fmt(warm['timings'])}; wall {warm['wall_s']:.1f} s")
            print(f"    usage.prompt_tokens_details = {warm['usage'].get('prompt_tokens_details')}")

        from langchain_openai import ChatOpenAI

        llm = ChatOpenAI(
            base_url=base_url, api_key="x", model=LOCAL_MODEL_NAME, temperature=0, max_tokens=200
        )  # type: ignore[arg-type]
        question = f"Tables:\n{schema[:600]}\nQuestion: total volume per ticker in market_table_0."
        t0 = time.perf_counter()
        out = llm.with_structured_output(SqlAnswer, method="json_schema", include_raw=True).invoke(question)
        print(f"(c) structured output ({time.perf_counter() - t0:.1f} s): parsed={out['parsed']!r}")
        print(f"    parsing_error={out['parsing_error']!r}")
        print(f"    usage_metadata (structured raw) = {json.dumps(out['raw'].usage_metadata)}")
        plain = llm.invoke("Say OK.")
        print(f"    usage_metadata (plain invoke)   = {json.dumps(plain.usage_metadata)}")
        print(f"    response_metadata keys = {sorted(plain.response_metadata)}")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
