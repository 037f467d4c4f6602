"""Issue 12, item 2: a generated hostile corpus (tests/unit/hostile_corpus.py) cannot get past the read-only walls.

Each statement runs the way ``nl2sql sql`` and the agent's execute tool run model SQL: the guard first, then
:meth:`Database.run_query` on a :class:`Database` built from small-limit Settings. For every statement: the guard
refuses it with a clear message (a string, never an exception), or it runs harmlessly (rows within the row, byte
and cell limits, or a clean error value such as a timeout); nothing raises; and afterwards the SQLite file is
byte-identical and the PostgreSQL cluster's fingerprint is unchanged. One summary line per dialect is printed
(``pytest -s``) and recorded as the test's ``hostile_summary`` property (in ``--junitxml`` reports).
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from core.settings import PROJECT_ROOT, Settings
from database.connection import Database
from database.guard import MAX_ERROR_CHARS, GuardResult, guard_sql
from database.results import QueryResult
from tests.unit.hostile_corpus import Hostile, corpus

CHINOOK = PROJECT_ROOT / "data" / "chinook" / "Chinook_Sqlite.sqlite"
LIMITS: dict[str, Any] = {"row_cap": 50, "query_timeout_s": 1.0, "result_max_bytes": 200_000, "cell_max_chars": 1_000}
CUT = "... [cut]"


@pytest.fixture(autouse=True)
def _quiet_sqlglot() -> Iterator[None]:
    """sqlglot logs a warning for every statement it falls back to parsing as a Command; hundreds here."""
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


@dataclass
class Tally:
    """What happened to the corpus of one dialect."""

    dialect: str
    tried: int = 0
    refused: int = 0
    ran_rows: int = 0
    ran_errors: int = 0
    timeouts: int = 0
    exceptions: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    changed: bool | None = None
    categories: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        """The one-line summary quoted in reports."""
        return (f"hostile corpus [{self.dialect}]: {self.tried} tried / {self.refused} refused by guard / "
                f"{self.ran_rows + self.ran_errors} ran harmlessly ({self.ran_rows} with rows, {self.ran_errors} "
                f"clean errors incl. {self.timeouts} timeouts) / {len(self.exceptions)} exceptions / "
                f"{len(self.problems)} problems / db changed: {'yes' if self.changed else 'no'}")


def _clear(message: object) -> bool:
    return (isinstance(message, str) and bool(message.strip()) and "Traceback" not in message
            and not message.startswith("The query could not be checked"))


def _limit_problem(result: QueryResult, db: Database) -> str | None:
    if len(result.rows) > db.row_cap:
        return f"{len(result.rows)} rows over the cap of {db.row_cap}"
    widest = db.max_cell_chars + len(CUT)
    cells = [c for row in result.rows for c in row]
    if any(isinstance(c, str) and len(c) > widest for c in cells):
        return "a cell longer than the cell limit"
    size = sum(len(c) if isinstance(c, str) else 8 for c in cells)
    if size > db.max_bytes + len(result.columns) * widest:
        return f"{size:,} characters fetched, over the byte budget"
    return None


def _check(item: Hostile, verdict: GuardResult, result: QueryResult, db: Database, tally: Tally) -> str | None:
    """Classify one outcome into ``tally``; returns a problem description or None."""
    if not isinstance(verdict, GuardResult) or not isinstance(result, QueryResult):
        return "not a GuardResult/QueryResult"
    if not verdict.ok:
        tally.refused += 1
        if not _clear(verdict.error) or len(verdict.error or "") > MAX_ERROR_CHARS:
            return f"unclear guard message {verdict.error!r}"
        return None if (not result.ok and result.error == verdict.error) else "refused by the guard but executed"
    if item.must_refuse:
        return "accepted by the guard"
    if result.ok:
        tally.ran_rows += 1
        return _limit_problem(result, db)
    tally.ran_errors += 1
    tally.timeouts += "timed out" in (result.error or "")
    return None if _clear(result.error) else f"unclear error {result.error!r}"


def run_corpus(db: Database, statements: list[Hostile]) -> Tally:
    """Guard and run every statement through ``db``; exceptions and problems are collected, never raised."""
    tally = Tally(db.dialect)
    for item in statements:
        tally.tried += 1
        tally.categories[item.category.split(":")[0]] += 1
        where = f"[{item.category}] {item.sql[:120]!r}"
        try:
            verdict = guard_sql(item.sql, db.dialect)
            result = db.run_query(item.sql)
            problem = _check(item, verdict, result, db, tally)
        except Exception as exc:  # the point of the test: nothing may escape
            tally.exceptions.append(f"{where}: {type(exc).__name__}: {exc}")
            continue
        if problem:
            tally.problems.append(f"{where}: {problem} (result error: {result.error!r})")
    return tally


def _report(tally: Tally, record_property: Any) -> None:
    line = tally.summary()
    print("\n" + line)
    record_property("hostile_summary", line)
    details = tally.exceptions[:20] + tally.problems[:40]
    assert not tally.exceptions and not tally.problems, "\n".join([line, *details])
    assert tally.changed is False, line


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_corpus_is_generated_large_and_varied(dialect: str) -> None:
    statements = corpus(dialect, "/scratch")
    assert len(statements) >= 500 and statements == corpus(dialect, "/scratch")
    parts = {part for s in statements for part in s.category.split(":")}
    assert {"write", "ddl", "admin", "call", "disguise", "case", "space", "comment", "stacked", "wrap", "unicode",
            "cte-write", "trick", "bomb", "nesting", "long-input"} <= parts
    assert max(len(s.sql) for s in statements) >= 100_000
    assert sum(s.must_refuse for s in statements) >= 400


def test_sqlite_corpus_leaves_chinook_byte_identical(tmp_path: Path, record_property: Any) -> None:
    folder, scratch = tmp_path / "db", tmp_path / "scratch"
    folder.mkdir()
    scratch.mkdir()
    copy = folder / "Chinook_Sqlite.sqlite"
    shutil.copy(CHINOOK, copy)
    before = _sha256(copy)
    db = Database.from_settings(Settings(database_url=f"sqlite:///{copy}", **LIMITS))
    tally = run_corpus(db, corpus("sqlite", str(scratch)))
    db.dispose()
    tally.changed = _sha256(copy) != before or sorted(p.name for p in folder.iterdir()) != [copy.name]
    assert not list(scratch.iterdir()), "a statement wrote a file"
    _report(tally, record_property)


def pg_fingerprint(admin_url: str, databases: tuple[str, ...] = ("chinook", "markets")) -> dict[str, Any]:
    """Roles, databases and, per database: relations (with ACLs), row counts and content hashes of every table,
    functions, extensions, schemas, triggers, rules, policies and large objects. Read with the superuser."""
    queries = {
        "roles": "SELECT rolname, rolsuper, rolcreaterole, rolcreatedb, rolcanlogin, rolbypassrls FROM pg_roles",
        "role_settings": "SELECT setdatabase, setrole, setconfig::text FROM pg_db_role_setting",
        "databases": "SELECT datname, datallowconn FROM pg_database",
    }
    per_db = {
        "relations": "SELECT n.nspname, c.relname, c.relkind, coalesce(c.relacl::text, '') FROM pg_class c "
                     "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT LIKE 'pg\\_%' "
                     "AND n.nspname <> 'information_schema'",
        "functions": "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                     " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')",
        "extensions": "SELECT extname, extversion FROM pg_extension",
        "schemas": "SELECT nspname, coalesce(nspacl::text, '') FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_temp%' "
                   "AND nspname NOT LIKE 'pg\\_toast\\_temp%'",
        "triggers": "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal",
        "rules": "SELECT schemaname, tablename, rulename FROM pg_rules",
        "policies": "SELECT polname FROM pg_policy",
        "large_objects": "SELECT count(*) FROM pg_largeobject_metadata",
    }
    base = make_url(admin_url)
    found: dict[str, Any] = {}
    for name in ("postgres", *databases):
        engine = create_engine(base.set(database=name), isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            for key, sql in (queries if name == "postgres" else per_db).items():
                found[f"{name}.{key}"] = sorted(tuple(map(str, r)) for r in conn.execute(text(sql)))
            if name != "postgres":
                tables = conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars()
                for table in sorted(tables):
                    found[f"{name}.rows.{table}"] = tuple(conn.execute(text(
                        f'SELECT count(*), md5(coalesce(string_agg(t::text, \'|\' ORDER BY t::text), \'\')) '
                        f'FROM public."{table}" AS t')).one())
        engine.dispose()
    return found


def test_postgres_corpus_leaves_cluster_unchanged(postgres_cluster: dict[str, str], tmp_path: Path,
                                                  record_property: Any) -> None:
    before = pg_fingerprint(postgres_cluster["admin"])
    assert before["chinook.rows.artist"][0] > 0 and any(k.startswith("markets.rows.") for k in before)
    db = Database.from_settings(Settings(database_url=postgres_cluster["chinook"], **LIMITS))
    assert db.dialect == "postgres"  # the guard reads the corpus as PostgreSQL
    tally = run_corpus(db, corpus("postgres", str(tmp_path / "scratch")))
    db.dispose()
    after = pg_fingerprint(postgres_cluster["admin"])
    tally.changed = after != before
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"{tally.summary()}; changed: {changed}"
    assert not (tmp_path / "scratch").exists(), "a statement wrote a file"
    _report(tally, record_property)


# Fixes found by the corpus.

@pytest.mark.parametrize("call", ["pg_logical_emit_message(false, 'h', repeat('x', 100000000))", "pg_stat_reset()",
                                  "pg_file_write('/tmp/f', 'x', false)", "pg_drop_replication_slot('h')",
                                  "pg_catalog.pg_create_logical_replication_slot('h', 'test_decoding')",
                                  "lo_truncate(0, 0)", "pg_promote()", "pg_import_system_collations('pg_catalog')"])
def test_guard_refuses_postgres_functions_that_write(call: str) -> None:
    # pg_logical_emit_message ran for the read-only role inside a read-only transaction (WAL writes: disk filler)
    verdict = guard_sql(f"SELECT {call}", "postgres")
    assert not verdict.ok and "is not allowed" in (verdict.error or "")


class _Batches:
    """A stand-in for a SQLAlchemy result: ``fetchmany`` hands out one-column rows forever."""

    def fetchmany(self, size: int) -> list[tuple[int]]:
        return [(1,)] * size


def test_fetch_stops_at_the_deadline_between_batches() -> None:
    db = Database("sqlite:///unused.sqlite", row_cap=1000, timeout_s=2.0)
    rows, note = db._fetch(_Batches(), 1000, deadline=0.0)  # a deadline long past: one batch, then stop
    assert 0 < len(rows) < 1000 and note and "time limit of 2 s" in note
    rows, note = db._fetch(_Batches(), 250)
    assert len(rows) == 250 and note and "row cap" in note


def test_postgres_results_stream_and_stop_on_the_row_cap(postgres_cluster: dict[str, str]) -> None:
    # Before the fix psycopg buffered the whole result client-side: an endless result was only ever a timeout
    # (and a cross join took ~1.6 GB of client memory in 5 s).
    db = Database(postgres_cluster["chinook"], row_cap=50, timeout_s=30.0)
    endless = db.run_query("SELECT generate_series(1, 1000000000000)")
    assert endless.ok and len(endless.rows) == 50 and endless.truncated and "row cap" in (endless.note or "")
    normal = db.run_query("SELECT name FROM genre ORDER BY genreid LIMIT 2")
    assert normal.rows == [("Rock",), ("Jazz",)] and not normal.truncated
    db.dispose()
