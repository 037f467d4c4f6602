"""A throwaway SQLite database with settings over it, and a tool context whose generator is a scripted model."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core.llm import LLMProvider, UsageLog
from core.settings import CandidateSpec, Settings
from database.connection import Database
from tests.support.scripted_model import ScriptedChatModel
from tools.base import ToolContext


def sqlite_settings(tmp_path: Path, script: str, name: str = "case") -> Settings:
    """Settings over ``tmp_path/<name>.sqlite`` built from the SQL ``script``: direct and plain candidates, a temp
    Chroma folder and state directory, no local server auto-start."""
    path = tmp_path / f"{name}.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(script)
    return Settings(database_url=f"sqlite:///{path}", retrieval={"chroma_path": tmp_path / "chroma"},
                    local_llm={"auto_start": False}, state_dir=tmp_path / "state",
                    generation={"candidates_local": CandidateSpec.parse_list("direct,plain")})


def generator_ctx(settings: Settings, model: ScriptedChatModel) -> ToolContext:
    """A tool context over ``settings``' database whose generator role is ``model`` (no vector store)."""
    return ToolContext(settings, Database.from_settings(settings), None,  # type: ignore[arg-type]
                       LLMProvider(settings, {"generator": model}), UsageLog())
