"""The SQL guard rejects anything but one read-only query, and the database file never changes."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from database.connection import Database
from database.guard import GuardResult, guard_sql, sqlglot_dialect

REJECTED_SQLITE = [
    "DROP TABLE t",
    "DROP TABLE IF EXISTS t",
    "DELETE FROM t",
    "DELETE FROM t WHERE id = 1",
    "UPDATE t SET name = 'x'",
    "INSERT INTO t (id, name) VALUES (9, 'x')",
    "INSERT INTO t SELECT * FROM t",
    "INSERT OR REPLACE INTO t VALUES (1, 'x')",
    "REPLACE INTO t VALUES (1, 'x')",
    "CREATE TABLE u (a INTEGER)",
    "CREATE TABLE u AS SELECT * FROM t",
    "CREATE VIEW v AS SELECT * FROM t",
    "CREATE INDEX i ON t (name)",
    "ALTER TABLE t ADD COLUMN c TEXT",
    "ALTER TABLE t RENAME TO u",
    "PRAGMA journal_mode = WAL",
    "PRAGMA writable_schema = 1",
    "ATTACH DATABASE 'other.db' AS other",
    "DETACH DATABASE other",
    "VACUUM",
    "VACUUM INTO '/tmp/copy.db'",
    "BEGIN",
    "BEGIN TRANSACTION",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT s1",
    "REINDEX",
    "ANALYZE",
    "SELECT 1; DROP TABLE t",
    "SELECT * FROM t; DELETE FROM t;",
    "SELECT 1 -- \n; DELETE FROM t",
    "/* */ DELETE FROM t",
    "/* SELECT */ DROP TABLE t",
    "-- just a comment\nUPDATE t SET name = NULL",
    "WITH x AS (SELECT 1) DELETE FROM t",
    "WITH x AS (SELECT * FROM t) INSERT INTO t SELECT * FROM x",
    "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x",
    "SELECT * INTO u FROM t",
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT * FROM t WHERE id IN (SELECT load_extension('x'))",
    "SELECT writefile('/tmp/x', 'data')",
    "SELECT readfile('/etc/passwd')",
    "SELECT 1 FROM t FOR UPDATE",
    "EXPLAIN DELETE FROM t",
    "",
    "   ",
    ";",
    "-- only a comment",
    "this is not sql at all !!",
    "SELECT 'unterminated",
    "SELEC * FROM t",
    "SELECT * FROM t WHERE",
]

REJECTED_OTHER = [
    ("WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", "postgres"),
    ("WITH x AS (UPDATE t SET a = 1 RETURNING *) SELECT count(*) FROM x", "postgres"),
    ("SELECT pg_sleep(10)", "postgres"),
    ("SELECT pg_catalog.pg_sleep(10)", "postgres"),
    ("SELECT pg_read_file('/etc/passwd')", "postgres"),
    ("SELECT lo_import('/etc/passwd')", "postgres"),
    ("SELECT query_to_xml('DELETE FROM t', true, true, '')", "postgres"),
    ("SELECT nextval('seq')", "postgres"),
    ("SELECT * INTO new_table FROM t", "postgres"),
    ("COPY t TO '/tmp/out.csv'", "postgres"),
    ("TRUNCATE TABLE t", "postgres"),
    ("SET search_path TO evil", "postgres"),
    ("GRANT SELECT ON t TO public", "postgres"),
    ("SELECT 1 /* nested /* comment */ ; DELETE FROM t */; DROP TABLE t", "postgres"),
    ("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", "oracle"),
    ("SELECT DBMS_PIPE.RECEIVE_MESSAGE('a', 10) FROM dual", "oracle"),
    ("SELECT SYS.DBMS_LOCK.SLEEP(5) FROM dual", "oracle"),
    ("SELECT UTL_HTTP.REQUEST('http://evil') FROM dual", "oracle"),
    ("SELECT utl_inaddr.get_host_name FROM dual", "oracle"),
]

ACCEPTED = [
    "SELECT * FROM t",
    "SELECT id, name FROM t WHERE name = 'DROP TABLE t'",
    "SELECT 'a; DELETE FROM t' AS s",
    "SELECT name FROM t WHERE name LIKE '%;%' ORDER BY id",
    "select count(*) from t;",
    "SELECT 1;  -- trailing comment",
    "/* leading comment */ SELECT name FROM t",
    "WITH x AS (SELECT id FROM t WHERE id > 1) SELECT * FROM x",
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT sum(i) FROM n",
    "SELECT id FROM t UNION SELECT id + 10 FROM t",
    "SELECT id FROM t INTERSECT SELECT id FROM t WHERE id < 3",
    "SELECT id FROM t EXCEPT SELECT 2",
    "SELECT name, ROW_NUMBER() OVER (ORDER BY id DESC) AS rn FROM t",
    "SELECT name, SUM(id) OVER (PARTITION BY name) FROM t",
    "SELECT * FROM t WHERE id IN (SELECT max(id) FROM t)",
    "SELECT a.name FROM t AS a JOIN t AS b ON a.id = b.id",
    "SELECT (SELECT count(*) FROM t) AS n",
    "SELECT deleted, updated_at FROM (SELECT 1 AS deleted, 2 AS updated_at)",
    "SELECT replace(name, 'a', 'b') FROM t",
    "SELECT * FROM (SELECT 1 AS a) UNION ALL SELECT 2",
]


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    """A tiny SQLite file with one table t(id, name)."""
    path = tmp_path / "guarded.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", [(1, "alpha"), (2, "beta"), (3, "gamma")])
    conn.close()
    return path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_enough_destructive_cases() -> None:
    assert len(REJECTED_SQLITE) + len(REJECTED_OTHER) >= 30


@pytest.mark.parametrize("sql", REJECTED_SQLITE)
def test_rejected_sqlite(sql: str) -> None:
    result = guard_sql(sql, "sqlite")
    assert not result.ok
    assert result.error and len(result.error) < 200


@pytest.mark.parametrize(("sql", "dialect"), REJECTED_OTHER)
def test_rejected_other_dialects(sql: str, dialect: str) -> None:
    result = guard_sql(sql, dialect)
    assert not result.ok, result
    assert result.error


@pytest.mark.parametrize("sql", ACCEPTED)
def test_accepted(sql: str) -> None:
    result = guard_sql(sql, "sqlite")
    assert result.ok, result.error
    assert result.error is None
    assert not result.sql.endswith(";")


def test_rejected_statements_leave_file_unchanged(db_file: Path) -> None:
    before = _sha256(db_file)
    db = Database(f"sqlite:///{db_file}")
    for sql in REJECTED_SQLITE + [s for s, _ in REJECTED_OTHER]:
        result = db.run_query(sql)
        assert not result.ok, sql
        assert result.error
    assert _sha256(db_file) == before
    assert sorted(p.name for p in db_file.parent.iterdir()) == [db_file.name]
    assert db.run_query("SELECT count(*) FROM t").rows == [(3,)]


def test_accepted_statements_run(db_file: Path) -> None:
    before = _sha256(db_file)
    db = Database(f"sqlite:///{db_file}")
    for sql in ACCEPTED:
        result = db.run_query(sql)
        assert result.ok, (sql, result.error)
    assert _sha256(db_file) == before


def test_messages_are_readable() -> None:
    assert guard_sql("DELETE FROM t", "sqlite").error == (
        "Only read-only SELECT statements are allowed; found DELETE."
    )
    assert "found DROP" in (guard_sql("/* x */ DROP TABLE t", "sqlite").error or "")
    assert "one statement" in (guard_sql("SELECT 1; SELECT 2", "sqlite").error or "")
    assert "Empty" in (guard_sql("  -- nothing\n", "sqlite").error or "")
    assert "LOAD_EXTENSION" in (guard_sql("SELECT load_extension('x')", "sqlite").error or "")
    assert "INTO" in (guard_sql("SELECT * INTO u FROM t", "postgres").error or "")
    syntax = guard_sql("SELECT * FROM t WHERE", "sqlite").error or ""
    assert syntax.startswith("SQL syntax error") and "\x1b" not in syntax


def test_statement_text_is_preserved() -> None:
    assert guard_sql("  SELECT 'a;b' ;; ", "sqlite") == GuardResult(True, "SELECT 'a;b'", None)
    assert guard_sql("/* lead */ SELECT [x] FROM t; -- done", "sqlite").sql == "SELECT [x] FROM t"
    oracle = "SELECT /*+ FULL(t) */ * FROM t FETCH FIRST 5 ROWS ONLY;"
    assert guard_sql(oracle, "oracle").sql == oracle[:-1]


def test_sqlglot_dialect_mapping() -> None:
    assert sqlglot_dialect("postgresql") == "postgres"
    assert sqlglot_dialect("postgresql+psycopg") == "postgres"
    assert sqlglot_dialect("sqlite") == "sqlite"
    assert sqlglot_dialect("oracle") == "oracle"
    assert sqlglot_dialect("mysql") == "mysql"
