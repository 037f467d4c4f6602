"""A throwaway PostgreSQL cluster with the demo ``markets`` database and Chinook, for tests and evaluation.

    python scripts/postgres_target.py start [--port 55432] [--dir DIR]   # prints the read-only URLs
    python scripts/postgres_target.py stop [--dir DIR]

``start`` installs Debian's ``postgresql`` when no server binaries are found (as root, with apt-get), creates a
cluster in ``DIR`` (default ``.nl2sql/pg``) owned by the ``postgres`` OS user, listening on 127.0.0.1 only with
trust authentication (a local test cluster: never expose it), loads both SQLite databases into databases
``markets`` and ``chinook`` (table and column names lower-cased, as PostgreSQL folds unquoted names, so the
same SQL runs on both engines; a text column holding only ISO dates, as SQLite stores dates, becomes a DATE
column, as a PostgreSQL schema would declare it) and creates the role ``nl2sql_ro``: it may connect and SELECT, its sessions
default to read-only transactions, and it owns nothing. Re-running ``start`` reuses a running cluster and
loaded databases.
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import Column, ForeignKeyConstraint, MetaData, Table, create_engine, select, text  # noqa: E402
from sqlalchemy.engine import Engine  # noqa: E402
from sqlalchemy.types import BigInteger, Date, Integer, NullType, String, Text, TypeEngine  # noqa: E402

from core.settings import DEMO_DB_PATH, PROJECT_ROOT  # noqa: E402

SOURCES = {"markets": DEMO_DB_PATH, "chinook": PROJECT_ROOT / "data" / "chinook" / "Chinook_Sqlite.sqlite"}
READ_ONLY_ROLE = "nl2sql_ro"
DEFAULT_PORT = 55432
DEFAULT_DIR = PROJECT_ROOT / ".nl2sql" / "pg"


def bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` holding ``pg_ctl``, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def install() -> Path:
    """Server binaries, installed with apt-get when missing.

    Raises:
        RuntimeError: not root, no apt-get, or the install failed (the message says which).
    """
    found = bin_dir()
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise RuntimeError("PostgreSQL is not installed and cannot be installed here (needs root and apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "postgresql"]):
        if subprocess.run(cmd, env=env, capture_output=True, text=True).returncode != 0:
            raise RuntimeError(f"`{' '.join(cmd)}` failed")
    found = bin_dir()
    if not found:
        raise RuntimeError("postgresql was installed but pg_ctl was not found")
    return found


def _as_postgres(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` as the ``postgres`` OS user when we are root (initdb and the server refuse root)."""
    full = ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd
    return subprocess.run(full, capture_output=True, text=True)


def superuser_url(port: int, database: str = "postgres") -> str:
    """SQLAlchemy URL of the cluster's superuser (trust authentication on loopback)."""
    return f"postgresql+psycopg://postgres@127.0.0.1:{port}/{database}"


def read_only_url(port: int, database: str) -> str:
    """SQLAlchemy URL of the read-only role for ``database``."""
    return f"postgresql+psycopg://{READ_ONLY_ROLE}@127.0.0.1:{port}/{database}"


def start(port: int = DEFAULT_PORT, data_dir: Path = DEFAULT_DIR) -> dict[str, str]:
    """Start (or reuse) the cluster and load the databases; returns name -> read-only URL.

    Raises:
        RuntimeError: the server could not be installed, initialised or started (with its log's tail).
    """
    bins = install()
    data_dir = Path(data_dir)
    if not (data_dir / "PG_VERSION").exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(data_dir, "postgres", "postgres")
        res = _as_postgres([str(bins / "initdb"), "-D", str(data_dir), "-A", "trust", "-U", "postgres", "-E", "UTF8"])
        if res.returncode != 0:
            raise RuntimeError(f"initdb failed: {res.stderr.strip()[-500:]}")
    if _as_postgres([str(bins / "pg_ctl"), "-D", str(data_dir), "status"]).returncode != 0:
        log = data_dir / "server.log"
        res = _as_postgres([str(bins / "pg_ctl"), "-D", str(data_dir), "-l", str(log), "-w", "-t", "120", "-o",
                            f"-p {port} -c listen_addresses=127.0.0.1 -k {data_dir}", "start"])
        if res.returncode != 0:
            tail = log.read_text(errors="replace")[-800:] if log.exists() else res.stderr
            raise RuntimeError(f"the PostgreSQL server did not start: {tail.strip()}")
    admin = create_engine(superuser_url(port), isolation_level="AUTOCOMMIT")
    _wait(admin)
    with admin.connect() as conn:
        if not conn.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": READ_ONLY_ROLE}).first():
            conn.execute(text(f"CREATE ROLE {READ_ONLY_ROLE} LOGIN"))
        conn.execute(text(f"ALTER ROLE {READ_ONLY_ROLE} SET default_transaction_read_only = on"))
        existing = {r[0] for r in conn.execute(text("SELECT datname FROM pg_database"))}
        for name in SOURCES:
            if name not in existing:
                conn.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()
    for name, source in SOURCES.items():
        load(Path(source), create_engine(superuser_url(port, name)))
    return {name: read_only_url(port, name) for name in SOURCES}


def _wait(engine: Engine, seconds: float = 60.0) -> None:
    """Poll until the server accepts connections (pg_ctl -w already waited; this covers slow sockets)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def load(sqlite_file: Path, target: Engine) -> None:
    """Copy every table of ``sqlite_file`` into ``target`` (lower-case names) unless already loaded.

    Tables are created with their keys and foreign keys, filled parent first, then made readable by
    :data:`READ_ONLY_ROLE`.
    """
    source = create_engine(f"sqlite:///{sqlite_file}")
    meta = MetaData()
    meta.reflect(source)
    with target.begin() as conn:
        if conn.execute(text("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"))\
                .scalar():
            return
    copy = MetaData()
    with source.connect() as src:
        dates = {(t.name, c.name) for t in meta.sorted_tables for c in t.columns if _iso_dates(src, t.name, c)}
    for table in meta.sorted_tables:
        columns = [Column(c.name.lower(), Date() if (table.name, c.name) in dates else _generic(c.type),
                          primary_key=c.primary_key, nullable=c.nullable, autoincrement=False)
                   for c in table.columns]
        fks = [ForeignKeyConstraint([c.lower() for c in fk.column_keys],
                                    [f"{fk.referred_table.name.lower()}.{e.column.name.lower()}" for e in fk.elements])
               for fk in table.foreign_key_constraints]
        Table(table.name.lower(), copy, *columns, *fks)
    with source.connect() as src, target.begin() as dst:  # one transaction: DDL too rolls back on failure
        copy.create_all(dst)
        for table in meta.sorted_tables:
            new = copy.tables[table.name.lower()]
            rows = src.execute(select(table)).mappings()
            batch: list[dict[str, object]] = []
            for row in rows:
                batch.append({k.lower(): dt.date.fromisoformat(v) if (table.name, k) in dates and v else v
                              for k, v in row.items()})
                if len(batch) >= 5000:
                    dst.execute(new.insert(), batch)
                    batch = []
            if batch:
                dst.execute(new.insert(), batch)
        dst.execute(text(f"GRANT USAGE ON SCHEMA public TO {READ_ONLY_ROLE}"))
        dst.execute(text(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {READ_ONLY_ROLE}"))
    source.dispose()
    target.dispose()


def _iso_dates(conn: Any, table: str, column: Column[Any]) -> bool:
    """True when ``column`` is text-typed and every stored value is an ISO date (YYYY-MM-DD), with at least one."""
    if not isinstance(column.type, (String, NullType)):
        return False
    name, col = f'"{table}"', f'"{column.name}"'
    count, bad = conn.execute(text(
        f"SELECT COUNT({col}), SUM(CASE WHEN {col} GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]' "
        f"THEN 0 ELSE 1 END) FROM {name} WHERE {col} IS NOT NULL")).one()
    return bool(count) and not bad


def _generic(kind: TypeEngine[Any]) -> TypeEngine[Any]:
    """The backend-neutral form of a reflected SQLite type (TEXT when none was declared, BIGINT for integers)."""
    if isinstance(kind, NullType):
        return Text()
    if isinstance(kind, Integer):
        return BigInteger()  # SQLite integers are 64-bit
    try:
        return kind.as_generic()
    except NotImplementedError:
        return Text()


def stop(data_dir: Path = DEFAULT_DIR) -> None:
    """Stop the cluster (the data directory stays; delete it to start afresh)."""
    bins = bin_dir()
    if bins and (Path(data_dir) / "PG_VERSION").exists():
        _as_postgres([str(bins / "pg_ctl"), "-D", str(data_dir), "-m", "fast", "stop"])


def main(argv: list[str] | None = None) -> int:
    """Command line: ``start`` prints one ``name=url`` line per database; ``stop``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["start", "stop"])
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(argv)
    try:
        if args.command == "stop":
            stop(args.dir)
            return 0
        for name, url in start(args.port, args.dir).items():
            print(f"{name}={url}")
        return 0
    except RuntimeError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
