"""The whole-schema listing: the database's own text, plus usable column descriptions of the enrichment file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from tools.whole_schema import whole_schema_listing

ENRICHED = """
version: 1
tables:
  t_01:
    description: {{text: Students of the college, one row each, status: {status}}}
    columns:
      c3: {{text: Age of the student in years, status: {status}}}
"""


@pytest.fixture
def db(tmp_path: Path) -> Database:
    path = tmp_path / "wh.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE t_01 (STU_ID INTEGER PRIMARY KEY, c3 INTEGER);"
                           "INSERT INTO t_01 VALUES (1, 19), (2, 21);")
    conn.close()
    return Database(f"sqlite:///{path}")


def test_the_listing_carries_usable_column_descriptions_only(db: Database, tmp_path: Path) -> None:
    enriched = tmp_path / "wh.enriched.yaml"
    enriched.write_text(ENRICHED.format(status="pending"), encoding="utf-8")
    bare = whole_schema_listing(db)
    assert "Age of the student" not in bare and "c3 INTEGER" in bare and "19" in bare
    assert whole_schema_listing(db, enriched_path=enriched) == bare  # a draft needs use_drafts
    drafted = whole_schema_listing(db, enriched_path=enriched, use_drafts=True)
    assert "Age of the student in years" in drafted
    assert "Students of the college" not in drafted  # table summaries stay out of the listing
    enriched.write_text(ENRICHED.format(status="approved"), encoding="utf-8")
    later = enriched.stat().st_mtime_ns + 1_000_000_000
    os.utime(enriched, ns=(later, later))  # a review rewrote the file: the cached listing is not reused
    assert "Age of the student in years" in whole_schema_listing(db, enriched_path=enriched)
    assert whole_schema_listing(db, enriched_path=tmp_path / "missing.yaml") == bare
