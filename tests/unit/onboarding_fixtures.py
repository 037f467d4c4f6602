"""Fixtures of the onboarding tests: a bare SQLite database with cryptic names, a scripted model, a job."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from core.llm import LLMProvider
from core.settings import Settings
from database.connection import Database
from retrieval.onboarding import OnboardingJob, Progress
from tests.support.scripted_model import ScriptedChatModel

BARE_SQL = """
CREATE TABLE countries (country_code TEXT PRIMARY KEY, country_name TEXT NOT NULL);
CREATE TABLE CUST_MSTR (CUST_ID INTEGER PRIMARY KEY, CUST_NM TEXT NOT NULL, CTRY_CD TEXT NOT NULL, SEG TEXT);
CREATE TABLE ORD_TXN (ORD_ID INTEGER PRIMARY KEY, CUST_ID INTEGER NOT NULL, ORD_DT TEXT NOT NULL, AMT REAL,
                      STS_CD TEXT NOT NULL);
INSERT INTO countries VALUES ('US', 'United States'), ('BR', 'Brazil'), ('SE', 'Sweden');
INSERT INTO CUST_MSTR VALUES (1, 'Ana Lima', 'BR', 'RETAIL'), (2, 'Bo Berg', 'SE', 'CORP'),
    (3, 'Cy Young', 'US', 'RETAIL'), (4, 'Di Moura', 'BR', 'CORP'), (5, 'Ed Stone', 'US', NULL);
INSERT INTO ORD_TXN VALUES (1, 1, '2024-01-02', 10.5, 'OPEN'), (2, 1, '2024-02-03', 20.0, 'SHIP'),
    (3, 2, '2024-02-04', 7.25, 'SHIP'), (4, 3, '2024-03-01', 99.0, 'CANC'), (5, 4, '2024-03-05', 5.0, 'SHIP'),
    (6, 5, '2024-04-01', 12.0, 'OPEN');
"""
METADATA = """
tables:
  countries:
    description: "Countries, one row per ISO code (written by a person)."
  CUST_MSTR:
    columns:
      CUST_NM: "Customer legal name (written by a person)."
"""
LOG = [
    "SELECT c.CUST_NM, SUM(o.AMT) FROM ORD_TXN o JOIN CUST_MSTR c ON c.CUST_ID = o.CUST_ID GROUP BY c.CUST_NM",
    "SELECT SUM(AMT) FROM ORD_TXN WHERE STS_CD = 'SHIP'",
    "SELECT COUNT(*) FROM ORD_TXN WHERE STS_CD = 'SHIP' AND AMT > 5",
    "SELECT SUM(o.AMT) FROM ORD_TXN o JOIN CUST_MSTR c ON c.CUST_ID = o.CUST_ID WHERE c.CTRY_CD = 'BR'",
]
METRIC = {"type": "metric", "name": "order value", "definition": "Sum of order amounts.", "sql": "SUM(ORD_TXN.AMT)",
          "tables": ["ORD_TXN"]}


def reply(messages: list[BaseMessage]) -> Any:
    """The scripted generator: table summaries, column descriptions, log questions, one metric draft, as JSON."""
    system, user = str(messages[0].content), str(messages[-1].content)
    if "Summarise ONE table" in system:
        table = re.search(r"^Table: (\S+)", user, re.M)
        return {"summary": f"Summary of {table.group(1) if table else '?'}."}
    if "Write the ONE question" in system:
        sql = user.split("SQL:\n", 1)[1].split("\n", 1)[0]
        words = " ".join(w.lower() for w in re.findall(r"[A-Za-z_]{4,}", sql)[-3:])
        return {"question": f"What do the past orders show for {words}?"}
    if "Describe these columns" in user:
        names = re.findall(r"^- (\S+) ", user.split("Describe these columns", 1)[1], re.M)
        return {"columns": [{"name": n, "description": f"What {n} holds."} for n in names]}
    return {"records": [METRIC]}


@pytest.fixture()
def bare(tmp_path: Path) -> Settings:
    """Settings on a bare database (human metadata for two items, no knowledge file), state in ``tmp_path``."""
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(BARE_SQL)
    conn.close()
    (tmp_path / "shop.metadata.yaml").write_text(METADATA, encoding="utf-8")
    return Settings(database_url=f"sqlite:///{path}", state_dir=tmp_path / "state", local_llm={"auto_start": False})


def make_job(settings: Settings, model: ScriptedChatModel | None = None, events: list[Progress] | None = None,
             **options: Any) -> OnboardingJob:
    """The job of ``settings``' database with the scripted generator (``reply`` unless ``model``)."""
    llms = LLMProvider(settings, overrides={"generator": model or ScriptedChatModel(script=reply)})
    progress = events.append if events is not None else None
    return OnboardingJob.from_settings(settings, Database.from_settings(settings), llms, progress=progress,
                                       **options)
