"""Prompt reading and generation speed of the local server with llama.cpp's flash attention auto, on or off.

For each option the script starts one in-process server on ``--port`` (default 8801; run it when no other
server or evaluation uses the cores), sends the demo generator's system prompt once (the cold prefill of ~2.5k
tokens), then the ``direct`` and ``query_plan`` requests of ``--questions`` demo gold questions (the schema
prefix cached, the user message new: the steady state of the app), and prints llama.cpp's own timings: prompt
tokens/s of the prefill, of the new user tokens (read at the depth of the cached schema) and generated tokens/s.

    python scripts/bench_flash_attn.py --options auto,on,off --json benchmarks/results/<date>-<subject>/flash-attn.json

Options run one after the other, each in a fresh child process (one llama.cpp server at a time).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def send(client: httpx.Client, root: str, body: dict[str, Any]) -> dict[str, Any]:
    """One chat completion; llama.cpp's timings of it."""
    started = time.perf_counter()
    data = client.post(f"{root}/v1/chat/completions", json=body).json()
    t = data.get("timings", {})
    return {"wall_s": round(time.perf_counter() - started, 2), "prompt_n": t.get("prompt_n"),
            "prompt_tok_s": round(t.get("prompt_per_second", 0.0), 1), "cache_n": t.get("cache_n"),
            "predicted_n": t.get("predicted_n"), "gen_tok_s": round(t.get("predicted_per_second", 0.0), 1)}


def measure(option: str, port: int, questions: int) -> dict[str, Any]:
    """Run one option in this process: start the server, send the requests, stop it."""
    import xllamacpp
    from bench_speculative import build_requests

    from core import local_server
    from core.settings import LocalLLMSettings, Settings

    kinds = xllamacpp.llama_flash_attn_type
    flash = {"auto": kinds.LLAMA_FLASH_ATTN_TYPE_AUTO, "on": kinds.LLAMA_FLASH_ATTN_TYPE_ENABLED,
             "off": kinds.LLAMA_FLASH_ATTN_TYPE_DISABLED}[option]
    base = Settings()
    local = LocalLLMSettings.model_validate({**base.local_llm.model_dump(), "port": port, "slot_save_path": None})
    settings = base.model_copy(update={"local_llm": local})
    original = local_server.build_params

    def with_flash(cfg: LocalLLMSettings) -> Any:
        params = original(cfg)
        params.flash_attn_type = flash
        return params

    local_server.build_params = with_flash
    server = local_server.LocalLLMServer(settings, in_process=True)
    server.start()
    root = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(timeout=900, trust_env=False) as client:
            while True:
                try:
                    if client.get(f"{root}/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.5)
            requests = [r for r in build_requests(base, questions) if r["kind"] in ("direct", "query_plan")]
            first = requests[0]["body"]
            warm = {**first, "max_tokens": 1, "messages": [first["messages"][0], {"role": "user", "content": "hi"}]}
            warm.pop("response_format")
            prefill = send(client, root, warm)
            rows = [{**send(client, root, r["body"]), "kind": r["kind"]} for r in requests]
    finally:
        server.stop()
    direct = [r for r in rows if r["kind"] == "direct"]
    return {"option": option, "prefill": prefill, "rows": rows,
            "prefill_tok_s": prefill["prompt_tok_s"],
            "new_prompt_tok_s_median": statistics.median(r["prompt_tok_s"] for r in direct),
            "gen_tok_s_median": statistics.median(r["gen_tok_s"] for r in rows)}


def main(argv: list[str] | None = None) -> int:
    """Measure every option in its own child process and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--options", default="auto,on,off")
    parser.add_argument("--port", type=int, default=8801)
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--json", help="write every option's timings here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child, args.port, args.questions)))
        return 0
    results = []
    for option in args.options.split(","):
        done = subprocess.run([sys.executable, __file__, "--child", option, "--port", str(args.port),
                               "--questions", str(args.questions)], capture_output=True, text=True, check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        results.append(result)
        print(f"flash attention {option:4}: prefill {result['prefill_tok_s']} tok/s, new prompt tokens "
              f"{result['new_prompt_tok_s_median']} tok/s, generation {result['gen_tok_s_median']} tok/s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
