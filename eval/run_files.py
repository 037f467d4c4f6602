"""The files of an evaluation run directory: ``run.json`` and one JSONL of records per configuration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def load_log(path: Path) -> dict[str, dict[str, Any]]:
    """Records already in a configuration's JSONL, by question id (a torn last line is ignored)."""
    if not path.exists():
        return {}
    out = {}
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        out[row["qid"]] = row
    return out


def load_run(run_dir: Path) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """``run.json`` (``{}`` when missing) and the records of each configuration.

    Configurations come in run order, then any other ``*.jsonl`` found.
    """
    meta = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").exists() else {}
    names = list(meta.get("configs", []))
    names += sorted(p.stem for p in run_dir.glob("*.jsonl") if p.stem not in names)
    rows = {n: list(load_log(run_dir / f"{n}.jsonl").values()) for n in names}
    return meta, {n: r for n, r in rows.items() if r}
