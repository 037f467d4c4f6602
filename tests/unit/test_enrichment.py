"""LLM metadata enrichment with a scripted fake model: gaps described, provenance, resume, errors, merge."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml
from langchain_core.messages import BaseMessage

from cli import enrich as cli_enrich
from cli.enrich import run_enrich as cmd_enrich
from core.llm import LLMProvider, UsageLog
from core.settings import Settings
from database.connection import Database
from database.descriptions import dump_enriched, load_enriched
from database.schema_reader import read_schema
from retrieval import enrichment, enrichment_prompts
from retrieval.enrichment import enrich
from tests.support.scripted_model import ScriptedChatModel

SCHEMA = """
CREATE TABLE trades (trade_id INTEGER PRIMARY KEY, desk_id INTEGER REFERENCES desks (desk_id), px REAL,
                     qty INTEGER, trade_dt TEXT, client_email TEXT);
CREATE TABLE desks (desk_id INTEGER PRIMARY KEY, desk_nm TEXT);
CREATE TABLE venues (mic TEXT PRIMARY KEY, venue_name TEXT);
INSERT INTO desks VALUES (1, 'Rates'), (2, 'Equities');
INSERT INTO venues VALUES ('XNYS', 'New York Stock Exchange');
INSERT INTO trades VALUES (1, 1, 101.5, 10, '2024-01-02', 'alice@fund.example'),
                          (2, 2, 99.0, 5, '2024-01-03', 'bob@fund.example');
"""
METADATA = """
tables:
  desks:
    description: Trading desks of the fund.
    columns:
      desk_id: Desk identifier.
  venues:
    description: Trading venues.
    columns:
      mic: Market identifier code.
      venue_name: Venue name.
  trades:
    columns:
      px: Trade price in USD.
"""
TODAY = dt.date(2025, 1, 2)


@pytest.fixture
def db(tmp_path: Path) -> Database:
    path = tmp_path / "fund.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA)
    conn.close()
    (tmp_path / "fund.metadata.yaml").write_text(METADATA, encoding="utf-8")
    return Database(f"sqlite:///{path}")


def _user(messages: list[BaseMessage]) -> str:
    return str(messages[-1].content)


def script(broken: str | None = None):  # type: ignore[no-untyped-def]
    """A script answering table-summary and column prompts; ``broken`` table gets malformed JSON."""

    def reply(messages: list[BaseMessage]) -> Any:
        user = _user(messages)
        table = re.search(r"^Table: (\S+)", user, re.M).group(1)  # type: ignore[union-attr]
        if table == broken:
            return "{not json"
        if "Summarise ONE table" in str(messages[0].content):
            return {"summary": f"Summary of {table}: one row per thing."}
        names = re.findall(r"^- (\S+) ", user.split("Describe these columns", 1)[1], re.M)
        return {"columns": [{"name": n, "description": f"What {n} holds."} for n in names] + [
            {"name": "no_such_column", "description": "ignored"}]}

    return reply


def _run(db: Database, out: Path, fake: ScriptedChatModel, **kwargs: Any) -> tuple[enrichment.EnrichReport,
                                                                                    UsageLog]:
    settings = Settings(database_url=db.url, local_llm={"auto_start": False})
    llms = LLMProvider(settings, overrides={"generator": fake})
    usage = UsageLog()
    report = enrich(db, llms, out, usage=usage, progress=False, model_name="fake-model", today=TODAY, **kwargs)
    return report, usage


def test_gaps_described_with_provenance(db: Database, tmp_path: Path) -> None:
    fake = ScriptedChatModel(script=script())
    out = tmp_path / "out.enriched.yaml"
    report, usage = _run(db, out, fake)

    data = load_enriched(out)
    assert set(data["tables"]) == {"desks", "trades"}  # venues is fully documented
    trades = data["tables"]["trades"]
    assert trades["description"] == {"text": "Summary of trades: one row per thing.", "status": "pending",
                                     "model": "fake-model", "generated": "2025-01-02"}
    assert set(trades["columns"]) == {"trade_id", "desk_id", "qty", "trade_dt", "client_email"}  # not px
    assert trades["columns"]["qty"] == {"text": "What qty holds.", "status": "pending", "model": "fake-model",
                                        "generated": "2025-01-02"}
    desks = data["tables"]["desks"]
    assert desks["description"] is None and set(desks["columns"]) == {"desk_nm"}  # human text untouched
    assert report.tables_described == ["trades"] and report.columns_described == 6
    assert report.tables_skipped == 1 and report.errors == {}
    assert usage.totals()["llm_calls"] == 3  # trades summary + trades columns + desks columns
    prompts = "\n".join(str(m.content) for p in fake.prompts for m in p)
    assert "alice@fund.example" not in prompts and "<masked>" in prompts  # sample rows are masked
    assert "Trade price in USD." in prompts  # human comments give context


def test_resumable_second_run_makes_no_calls(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "out.yaml"
    _run(db, out, ScriptedChatModel(script=script()))
    first = out.read_bytes()
    again = ScriptedChatModel(script=script())
    report, usage = _run(db, out, again)
    assert again.prompts == [] and usage.calls == [] and report.tables_skipped == 3
    assert out.read_bytes() == first


def test_force_regenerates_pending_and_rejected_only(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "out.yaml"
    _run(db, out, ScriptedChatModel(script=script()))
    raw = yaml.safe_load(out.read_text())
    raw["tables"]["trades"]["columns"]["qty"].update(status="approved", text="Quantity in shares.")
    raw["tables"]["trades"]["columns"]["trade_dt"].update(status="rejected", text="Nonsense.")
    out.write_text(yaml.safe_dump(raw))
    fake = ScriptedChatModel(script=script())
    _run(db, out, fake, force=True)
    cols = load_enriched(out)["tables"]["trades"]["columns"]
    assert cols["qty"]["text"] == "Quantity in shares." and cols["qty"]["status"] == "approved"
    assert cols["trade_dt"] == {"text": "What trade_dt holds.", "status": "pending", "model": "fake-model",
                                "generated": "2025-01-02"}
    assert fake.prompts and "- qty " not in _user(fake.prompts[-1])


@pytest.mark.parametrize(("broken", "ok"), [("trades", "desks"), ("desks", "trades")])
def test_malformed_reply_recorded_and_others_enriched(db: Database, tmp_path: Path, broken: str,
                                                      ok: str) -> None:
    out = tmp_path / "out.yaml"
    report, usage = _run(db, out, ScriptedChatModel(script=script(broken=broken)))
    assert set(report.errors) == {broken} and "generator call failed" in report.errors[broken]
    assert set(load_enriched(out)["tables"]) == {ok}  # nothing (not even an empty entry) for the failure
    assert "venues" not in out.read_text()
    assert any(not c.ok for c in usage.calls)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []  # atomic writes
    report, _ = _run(db, out, ScriptedChatModel(script=script()))  # a later run fills the gap
    assert report.errors == {} and set(load_enriched(out)["tables"]) == {"desks", "trades"}


def test_failed_batch_is_asked_again_one_column_at_a_time(db: Database, tmp_path: Path) -> None:
    good = script()

    def runaway_batches(messages: list[BaseMessage]) -> Any:
        user = _user(messages)
        if "Describe these columns" in user and len(re.findall(r"^- \S+ ", user.split("Describe these columns",
                                                                                      1)[1], re.M)) > 1:
            return '{"columns": [{"name": "qty", "description": "' + "again " * 400  # cut at the token cap
        return good(messages)

    out = tmp_path / "out.yaml"
    fake = ScriptedChatModel(script=runaway_batches)
    report, usage = _run(db, out, fake)
    assert report.errors == {}
    trades = load_enriched(out)["tables"]["trades"]["columns"]
    assert set(trades) == {"trade_id", "desk_id", "qty", "trade_dt", "client_email"}
    assert trades["qty"]["text"] == "What qty holds."
    ok_calls = [c for c in usage.calls if c.ok]
    assert len(usage.calls) - len(ok_calls) >= 1  # the batch failed and was recorded as a failed call
    assert len(ok_calls) == 1 + 5 + 1  # trades summary, five single trades columns, the desks column


def test_yaml_is_deterministic(db: Database, tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    _run(db, a, ScriptedChatModel(script=script()))
    _run(db, b, ScriptedChatModel(script=script()))
    text = a.read_text()
    assert text == b.read_text() and text.startswith("version: 1\ntables:\n")
    assert text.index("  desks:") < text.index("  trades:")
    cols = list(yaml.safe_load(text)["tables"]["trades"]["columns"])
    assert cols == sorted(cols)
    assert list(yaml.safe_load(text)["tables"]["trades"]["description"]) == [
        "text", "status", "model", "generated"]
    assert dump_enriched(load_enriched(a)) == text  # load/dump round trip is stable


def test_read_schema_merges_enriched_but_not_rejected(db: Database, tmp_path: Path) -> None:
    sidecar = tmp_path / "fund.enriched.yaml"  # default path: next to the database file
    sidecar.write_text(yaml.safe_dump({"version": 1, "tables": {
        "TRADES": {"description": {"text": "Generated trades summary.", "status": "approved"},
                   "columns": {"px": {"text": "LLM guess about px.", "status": "pending"},
                               "qty": {"text": "Quantity traded.", "status": "edited"},
                               "trade_dt": {"text": "Wrong text.", "status": "rejected"},
                               "client_email": "Client contact e-mail (hand-written)."}},
        "desks": {"description": {"text": "Generated desks text.", "status": "pending"}},
    }}))
    tables = {t.name: t for t in read_schema(db, sample_rows=0)}
    trades, desks = tables["trades"], tables["desks"]
    assert trades.comment == "Generated trades summary."
    comments = {c.name: c.comment for c in trades.columns}
    assert comments["px"] == "Trade price in USD."  # human metadata wins
    assert comments["qty"] == "Quantity traded." and comments["trade_dt"] is None
    assert comments["client_email"] == "Client contact e-mail (hand-written)."
    assert desks.comment == "Trading desks of the fund."  # human metadata wins
    plain = {t.name: t for t in read_schema(db, sample_rows=0, use_enriched=False)}
    assert plain["trades"].comment is None
    other = tmp_path / "elsewhere.yaml"
    other.write_text(yaml.safe_dump({"version": 1, "tables": {"trades": {"description": "From elsewhere."}}}))
    assert {t.name: t for t in read_schema(db, sample_rows=0, enriched_path=other)}["trades"].comment == (
        "From elsewhere.")


def test_load_enriched_rejects_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 2\ntables: {}\n")
    with pytest.raises(ValueError, match="version"):
        load_enriched(bad)
    bad.write_text(json.dumps({"version": 1, "tables": {"t": {"description": {"text": "x", "status": "ok"}}}}))
    with pytest.raises(ValueError, match="review status"):
        load_enriched(bad)
    with pytest.raises(FileNotFoundError):
        load_enriched(tmp_path / "missing.yaml")


def test_cmd_enrich(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> None:
    fake = ScriptedChatModel(script=script())
    monkeypatch.setattr(cli_enrich, "LLMProvider",
                        lambda settings: LLMProvider(settings, overrides={"generator": fake}))
    settings = Settings(local_llm={"auto_start": False})
    out = tmp_path / "cli.yaml"
    args = argparse.Namespace(database=db.url, out=str(out), force=False)
    assert cmd_enrich(args, settings) == 0
    assert "1 table summaries, 6 column descriptions" in capsys.readouterr().out
    assert set(load_enriched(out)["tables"]) == {"desks", "trades"}


OPAQUE_SCHEMA = """
CREATE TABLE t_01 (STU_ID INTEGER PRIMARY KEY, LNAME TEXT, c3 INTEGER, c4 TEXT);
INSERT INTO t_01 VALUES (1, 'Smith', 19, 'Boston'), (2, 'Jones', 21, 'Austin');
"""


def test_opaque_only_describes_names_that_say_nothing(tmp_path: Path) -> None:
    path = tmp_path / "wh.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(OPAQUE_SCHEMA)
    conn.close()
    fake = ScriptedChatModel(script=script())
    out = tmp_path / "wh.enriched.yaml"
    report, usage = _run(Database(f"sqlite:///{path}"), out, fake, opaque_only=True)
    table = load_enriched(out)["tables"]["t_01"]
    assert table["description"]["text"].startswith("Summary of t_01")  # "t_01" says nothing
    assert set(table["columns"]) == {"c3", "c4"}  # STU_ID and LNAME read as words
    assert report.columns_described == 2 and usage.totals()["llm_calls"] == 2
    column_prompt = _user(fake.prompts[-1])
    assert "19" in column_prompt and "Boston" in column_prompt  # the values are what tells c3 and c4 apart


def test_column_prompt_shows_rows_links_and_readings(db: Database, tmp_path: Path) -> None:
    fake = ScriptedChatModel(script=script())
    _run(db, tmp_path / "out.yaml", fake)
    columns = [_user(p) for p in fake.prompts if "Describe these columns" in _user(p)]
    trades = next(p for p in columns if p.startswith("Table: trades"))
    desks = next(p for p in columns if p.startswith("Table: desks"))
    # the described columns are shown in rows beside their neighbours (masked as everywhere)
    rows = trades.split("Sample rows:", 1)[1].split("Describe these columns", 1)[0]
    assert "trade_id | desk_id | px | qty | trade_dt | client_email" in rows and "101.5 | 10 | 2024-01-02" in rows
    assert "alice@fund.example" not in trades
    # foreign-key neighbours both ways, with their columns
    assert "- desks: desk_id -> desks.desk_id (columns: desk_id, desk_nm (desk name))" in trades
    assert "<- trades.desk_id" in desks and "trade_dt (trade date)" in desks
    assert "(none declared)" not in trades


def test_rows_keep_the_described_columns_of_a_wide_table() -> None:
    from database.schema_types import ColumnInfo, TableInfo

    names = [f"c{i}" for i in range(30)]
    table = TableInfo(name="t_01", columns=[ColumnInfo(name=n, type="INTEGER") for n in names],
                      sample_rows=[{n: i for i, n in enumerate(names)}])
    header = enrichment_prompts._rows(table, ["c25", "c29"]).splitlines()[0].split(" | ")
    assert len(header) == enrichment_prompts.ROW_COLUMNS and {"c25", "c29", "c0"} <= set(header)
    assert enrichment_prompts._links(table, [table]) == "(none declared)"


def test_a_description_that_repeats_the_values_is_asked_again_then_dropped(db: Database, tmp_path: Path) -> None:
    asked: list[list[str]] = []

    def reply(messages: list[BaseMessage]) -> Any:
        user = _user(messages)
        if "Summarise ONE table" in str(messages[0].content):
            return {"summary": "One row per trade."}
        names = re.findall(r"^- (\S+) ", user.split("Describe these columns", 1)[1], re.M)
        asked.append(names)
        # qty's values echoed every time; desk_nm echoed in the batch only (a lone ask describes it)
        echo = {"qty": "10, 5", "desk_nm": "Rates, Equities" if len(names) > 1 else "Name of the trading desk"}
        return {"columns": [{"name": n, "description": echo.get(n, f"About {n} here.")} for n in names]}

    out = tmp_path / "out.yaml"
    report, _ = _run(db, out, ScriptedChatModel(script=reply))
    tables = load_enriched(out)["tables"]
    assert "qty" not in tables["trades"]["columns"] and ["qty"] in asked  # asked alone once, then dropped
    assert "echo" not in str(report.errors) and "repeats the column's values" in report.errors["trades"]
    assert tables["trades"]["columns"]["trade_dt"]["text"] == "About trade_dt here."


def test_echoes() -> None:
    from database.schema_types import ColumnInfo, TableInfo

    table = TableInfo(name="PPL", columns=[ColumnInfo(name="c7", type="TEXT")],
                      sample_rows=[{"c7": "Mark Fayne"}, {"c7": "Ty Conklin"}])
    assert enrichment_prompts.echoes("Mark Fayne, Ty Conklin", table, "c7")
    assert enrichment_prompts.echoes("TEXT values like Mark Fayne", table, "c7")
    assert not enrichment_prompts.echoes("Name: Mark Fayne, Ty Conklin", table, "c7")
    assert not enrichment_prompts.echoes("Name of the person", table, "c7")
