"""Tests of the synthetic ``markets`` demo database, its metadata, gold questions and few-shot examples."""

from __future__ import annotations

import datetime as dt
import difflib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import yaml

from data.markets.generate import canonical_digest, generate
from data.markets.synth import is_valid_isin, isin_check_digit

MARKETS_DIR = Path(__file__).resolve().parents[2] / "data" / "markets"
CATEGORIES = {"lookup", "join", "aggregation", "latest", "window", "ranking", "index", "fx"}
DATE_COLUMNS = {"TRD_DT", "EX_DT", "PAY_DT", "RT_DT", "trade_date", "VLD_FR", "VLD_TO", "DALIS", "DAEND"}


def _jsonl(name: str) -> list[dict[str, Any]]:
    lines = (MARKETS_DIR / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="session")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database generated once per test session with the default seed."""
    return generate(tmp_path_factory.mktemp("markets") / "markets.sqlite")


@pytest.fixture()
def conn(db_path: Path) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        yield c
    finally:
        c.close()


def _columns(conn: sqlite3.Connection) -> dict[str, list[str]]:
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")] for t in tables}


def test_generation_is_deterministic(db_path: Path, tmp_path: Path) -> None:
    again = generate(tmp_path / "again.sqlite")
    assert canonical_digest(again) == canonical_digest(db_path)
    assert not list(tmp_path.glob(".*.tmp")), "temporary file left behind"


def test_other_seed_changes_content(db_path: Path, tmp_path: Path) -> None:
    assert canonical_digest(generate(tmp_path / "other.sqlite", seed=8)) != canonical_digest(db_path)


@pytest.mark.parametrize(
    ("table", "minimum"),
    [
        ("exchanges", 10),
        ("countries", 10),
        ("currencies", 8),
        ("gics_sectors", 11),
        ("EQ_MSTR", 200),
        ("EQ_PX_D", 100_000),
        ("EQ_DVD", 500),
        ("indices", 3),
        ("IDX_CMP", 500),
        ("index_levels", 1_000),
        ("FX_RT_D", 3_000),
    ],
)
def test_row_count_minimums(conn: sqlite3.Connection, table: str, minimum: int) -> None:
    (count,) = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
    assert count >= minimum


def test_calendar_is_two_years_of_weekdays_ending_2025_10_31(conn: sqlite3.Connection) -> None:
    days = [r[0] for r in conn.execute("SELECT DISTINCT TRD_DT FROM EQ_PX_D ORDER BY TRD_DT")]
    assert days[-1] == "2025-10-31"
    assert dt.date.fromisoformat(days[-1]) - dt.date.fromisoformat(days[0]) >= dt.timedelta(days=730)
    assert all(dt.date.fromisoformat(d).weekday() < 5 for d in days)


def test_isin_check_digits(conn: sqlite3.Connection) -> None:
    assert isin_check_digit("US037833100") == 5  # Apple, US0378331005
    assert is_valid_isin("US0378331005") and not is_valid_isin("US0378331006")
    rows = conn.execute("SELECT ISIN, ISS_CTRY FROM EQ_MSTR").fetchall()
    assert all(is_valid_isin(isin) for isin, _ in rows)
    assert all(isin[:2] == country for isin, country in rows)


def test_famous_names_present(conn: sqlite3.Connection) -> None:
    expected = {
        ("AAPL", "XNAS"),
        ("MSFT", "XNAS"),
        ("NVDA", "XNAS"),
        ("TSLA", "XNAS"),
        ("JPM", "XNYS"),
        ("MC", "XPAR"),
        ("SAP", "XETR"),
        ("NESN", "XSWX"),
        ("7203", "XTKS"),
        ("HSBA", "XLON"),
        ("SHEL", "XLON"),
    }
    assert expected <= set(conn.execute("SELECT TICKER, LIMAR FROM EQ_MSTR").fetchall())


def test_foreign_keys_declared_and_no_orphans(db_path: Path, conn: sqlite3.Connection) -> None:
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    inspector = sa.inspect(sa.create_engine(f"sqlite:///{db_path}"))
    assert inspector.get_pk_constraint("EQ_PX_D")["constrained_columns"] == ["EQ_ID", "TRD_DT"]
    fks = {
        (fk["referred_table"], tuple(fk["constrained_columns"]))
        for fk in inspector.get_foreign_keys("EQ_PX_D")
    }
    assert ("EQ_MSTR", ("EQ_ID",)) in fks
    for table in ("exchanges", "EQ_MSTR", "EQ_DVD", "IDX_CMP", "index_levels", "FX_RT_D"):
        assert inspector.get_foreign_keys(table), table
    orphans = conn.execute(
        "SELECT COUNT(*) FROM EQ_PX_D p LEFT JOIN EQ_MSTR m ON m.EQ_ID = p.EQ_ID WHERE m.EQ_ID IS NULL"
    ).fetchone()[0]
    assert orphans == 0


def test_prices_consistent_and_inside_listing_window(conn: sqlite3.Connection) -> None:
    bad_bars = conn.execute(
        "SELECT COUNT(*) FROM EQ_PX_D WHERE PX_LO > MIN(PX_OPEN, PX_LST) OR PX_HI < MAX(PX_OPEN, PX_LST) "
        "OR PX_LO <= 0 OR PX_VOL <= 0"
    ).fetchone()[0]
    assert bad_bars == 0
    outside = conn.execute(
        "SELECT COUNT(*) FROM EQ_PX_D p JOIN EQ_MSTR m ON m.EQ_ID = p.EQ_ID "
        "WHERE p.TRD_DT < m.DALIS OR (m.DAEND IS NOT NULL AND p.TRD_DT > m.DAEND)"
    ).fetchone()[0]
    assert outside == 0
    (delisted,) = conn.execute("SELECT COUNT(*) FROM EQ_MSTR WHERE DAEND IS NOT NULL").fetchone()
    assert 1 <= delisted <= 20


def test_index_weights_sum_to_one(conn: sqlite3.Connection) -> None:
    sums = conn.execute("SELECT IDX_ID, VLD_FR, SUM(WGT) FROM IDX_CMP GROUP BY IDX_ID, VLD_FR").fetchall()
    assert sums and all(abs(total - 1.0) < 1e-4 for _, _, total in sums)


def test_gold_questions(conn: sqlite3.Connection) -> None:
    gold = _jsonl("gold.jsonl")
    assert len(gold) >= 48
    assert len({g["id"] for g in gold}) == len(gold)
    assert {g["category"] for g in gold} == CATEGORIES
    columns = _columns(conn)
    for g in gold:
        assert set(g) == {"id", "question", "sql", "category", "entities"}, g["id"]
        assert conn.execute(g["sql"]).fetchall(), f"{g['id']} returned no rows"
        for ent in g["entities"]:
            assert ent["column"] in columns[ent["table"]], (g["id"], ent)
            if ent["column"] not in DATE_COLUMNS:
                found = conn.execute(
                    f"SELECT 1 FROM {ent['table']} WHERE {ent['column']} = ? LIMIT 1", (ent["value"],)
                ).fetchone()
                assert found, (g["id"], ent)


def _norm(text: str) -> str:
    return " ".join("".join(c.lower() if c.isalnum() else " " for c in text).split())


def test_examples_execute_and_differ_from_gold(conn: sqlite3.Connection) -> None:
    examples = _jsonl("markets.examples.jsonl")
    assert len(examples) >= 20
    gold_questions = [_norm(g["question"]) for g in _jsonl("gold.jsonl")]
    for ex in examples:
        assert conn.execute(ex["sql"]).fetchall(), ex["question"]
        q = _norm(ex["question"])
        closest = max(difflib.SequenceMatcher(None, q, g).ratio() for g in gold_questions)
        assert closest < 0.8, ex["question"]


def test_metadata_documents_about_half(conn: sqlite3.Connection) -> None:
    meta = yaml.safe_load((MARKETS_DIR / "markets.metadata.yaml").read_text(encoding="utf-8"))
    columns = _columns(conn)
    documented_cols = 0
    for table, spec in meta["tables"].items():
        assert table in columns, table
        for column in (spec or {}).get("columns", {}) or {}:
            assert column in columns[table], (table, column)
            documented_cols += 1
    total_cols = sum(len(c) for c in columns.values())
    assert 0.3 <= len(meta["tables"]) / len(columns) <= 0.7
    assert 0.3 <= documented_cols / total_cols <= 0.7
