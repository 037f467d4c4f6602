"""Prepare the team deployment's PostgreSQL (compose.yaml): a state database and the demo target ``markets``.

    python scripts/seed_postgres.py --admin-url postgresql+psycopg://postgres:PW@postgres/postgres \\
        --state-password PW --reader-password PW

Creates, when missing: role ``nl2sql_state`` owning database ``nl2sql_state`` (checkpoints, traces, feedback:
``NL2SQL_STATE_URL``); database ``markets`` loaded from the demo SQLite file (``nl2sql setup`` makes it) and the
role ``nl2sql_ro``, which may connect and SELECT and whose sessions default to read-only transactions
(``NL2SQL_DATABASE_URL``). Re-running it changes nothing but the two passwords. Waits up to 120 s for the server.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sqlalchemy import create_engine, make_url, text

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from postgres_target import READ_ONLY_ROLE, load  # noqa: E402
from postgres_target import _wait as wait_for_server  # noqa: E402

from core.settings import DEMO_DB_PATH  # noqa: E402

STATE_ROLE = "nl2sql_state"
STATE_DB = "nl2sql_state"
TARGET_DB = "markets"


def _literal(value: str) -> str:
    """``value`` as an SQL string literal (passwords cannot be bound parameters in CREATE/ALTER ROLE)."""
    return "'" + value.replace("'", "''") + "'"


def seed(admin_url: str, state_password: str, reader_password: str) -> None:
    """Create the roles and databases described in the module docstring and load ``markets``.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: the server is unreachable after 120 s or refuses a statement.
    """
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    wait_for_server(admin, 120.0)
    with admin.connect() as conn:
        for role, password in ((STATE_ROLE, state_password), (READ_ONLY_ROLE, reader_password)):
            exists = conn.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first()
            conn.execute(text(f"{'ALTER' if exists else 'CREATE'} ROLE {role} LOGIN PASSWORD {_literal(password)}"))
        conn.execute(text(f"ALTER ROLE {READ_ONLY_ROLE} SET default_transaction_read_only = on"))
        existing = {r[0] for r in conn.execute(text("SELECT datname FROM pg_database"))}
        if STATE_DB not in existing:
            conn.execute(text(f"CREATE DATABASE {STATE_DB} OWNER {STATE_ROLE}"))
        if TARGET_DB not in existing:
            conn.execute(text(f"CREATE DATABASE {TARGET_DB}"))
    admin.dispose()
    load(DEMO_DB_PATH, create_engine(make_url(admin_url).set(database=TARGET_DB)))


def main(argv: list[str] | None = None) -> int:
    """Command line; exit status 0 done, 1 failed (one ``Error:`` line)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--admin-url", required=True, help="SQLAlchemy URL of a superuser (database postgres)")
    parser.add_argument("--state-password", required=True)
    parser.add_argument("--reader-password", required=True)
    args = parser.parse_args(argv)
    try:
        seed(args.admin_url, args.state_password, args.reader_password)
    except Exception as exc:
        print(f"Error: {' '.join(str(exc).split())[:500]}", file=sys.stderr)
        return 1
    print(f"PostgreSQL ready: databases {STATE_DB} (role {STATE_ROLE}) and {TARGET_DB} (role {READ_ONLY_ROLE}).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
