"""Schema reader: keys, comments, metadata merge, sample-row ordering and DDL rendering."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from database import descriptions
from database.connection import Database
from database.results import QueryResult
from database.schema_reader import (
    _ORACLE_QUERIES,
    date_column,
    format_sample_rows,
    merge_metadata,
    quote_identifier,
    read_schema,
    sample_query,
    table_ddl,
)
from database.schema_types import ColumnInfo, ForeignKey, TableInfo

SCHEMA = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, born DATE, signup_date DATE);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id),
    order_date DATETIME,
    amount NUMERIC(10, 2)
);
CREATE TABLE order_items (
    order_id INTEGER NOT NULL,
    line_no INTEGER NOT NULL,
    note TEXT,
    PRIMARY KEY (order_id, line_no),
    FOREIGN KEY (order_id) REFERENCES orders (id)
);
CREATE TABLE events (id INTEGER PRIMARY KEY, customer INTEGER REFERENCES customers, created_dt TEXT);
CREATE TABLE regions (code TEXT PRIMARY KEY, label TEXT);
CREATE TABLE "Order Details" ("Detail Id" INTEGER PRIMARY KEY, "Ship Date" TEXT, "select" TEXT);
"""

METADATA = """
tables:
  customers:
    description: People who bought something.
    columns:
      name: Full name as printed on invoices.
      signup_date: Day the account was opened.
  ORDERS:
    description: One row per checkout.
    columns:
      AMOUNT: Order total in EUR.
"""


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    """A small shop database with FKs (explicit, composite-PK child, implicit target) and dates."""
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA)
        conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", [
            (1, "Ann", "1990-01-01", "2023-05-01"), (2, "Bob", "1980-01-01", "2024-02-01"),
            (3, "Cy", "2000-01-01", "2022-01-01"),
        ])
        conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)", [
            (1, 1, "2024-01-05 10:00:00", 10.5), (2, 2, "2024-03-01 09:00:00", 99.0),
            (3, 1, "2023-12-31 23:59:59", 5.25), (4, 3, None, 1.0),
        ])
        conn.executemany("INSERT INTO order_items VALUES (?, ?, ?)", [(1, 1, "x" * 100), (2, 1, "ok")])
        conn.executemany("INSERT INTO events VALUES (?, ?, ?)", [(1, 1, "2024-01-01"), (2, 2, "2024-06-01")])
        conn.executemany("INSERT INTO regions VALUES (?, ?)", [("b", "Beta"), ("a", "Alpha"), ("c", "Gamma")])
        conn.execute("""INSERT INTO "Order Details" VALUES (1, '2024-01-01', 'x'), (2, '2024-02-01', 'y')""")
    conn.close()
    return path


def _by_name(tables: list[TableInfo]) -> dict[str, TableInfo]:
    return {t.name: t for t in tables}


def test_tables_keys_and_types(db_file: Path) -> None:
    tables = _by_name(read_schema(Database(f"sqlite:///{db_file}"), sample_rows=0))
    assert set(tables) == {"customers", "orders", "order_items", "events", "regions", "Order Details"}
    orders = tables["orders"]
    assert orders.primary_key == ["id"]
    assert [c.name for c in orders.columns] == ["id", "customer_id", "order_date", "amount"]
    assert orders.column("AMOUNT") is not None and orders.column("amount").type == "NUMERIC(10, 2)"  # type: ignore[union-attr]
    assert orders.column("id").primary_key and not orders.column("customer_id").nullable  # type: ignore[union-attr]
    assert orders.foreign_keys == [ForeignKey(["customer_id"], "customers", ["id"])]
    items = tables["order_items"]
    assert items.primary_key == ["order_id", "line_no"]
    assert items.foreign_keys == [ForeignKey(["order_id"], "orders", ["id"])]
    # "REFERENCES customers" without a column list points at the parent's primary key
    assert tables["events"].foreign_keys == [ForeignKey(["customer"], "customers", ["id"])]
    assert all(not t.sample_rows for t in tables.values())


def test_sidecar_metadata_fills_comments(db_file: Path) -> None:
    db_file.with_name("shop.metadata.yaml").write_text(METADATA, encoding="utf-8")
    tables = _by_name(read_schema(Database(f"sqlite:///{db_file}"), sample_rows=0))
    customers, orders = tables["customers"], tables["orders"]
    assert customers.comment == "People who bought something."
    assert customers.column("name").comment == "Full name as printed on invoices."  # type: ignore[union-attr]
    assert customers.column("born").comment is None  # type: ignore[union-attr]
    assert orders.comment == "One row per checkout."  # case-insensitive table and column names
    assert orders.column("amount").comment == "Order total in EUR."  # type: ignore[union-attr]


def test_explicit_metadata_path(db_file: Path, tmp_path: Path) -> None:
    meta = tmp_path / "elsewhere.yaml"
    meta.write_text("tables:\n  regions:\n    description: Sales regions.\n", encoding="utf-8")
    tables = _by_name(read_schema(Database(f"sqlite:///{db_file}"), sample_rows=0, metadata_path=meta))
    assert tables["regions"].comment == "Sales regions."
    with pytest.raises(FileNotFoundError):
        read_schema(Database(f"sqlite:///{db_file}"), metadata_path=tmp_path / "missing.yaml")


def test_database_comment_wins_over_metadata() -> None:
    table = TableInfo("t", [ColumnInfo("a", "INT", comment="from db"), ColumnInfo("b", "INT")], comment="db")
    merge_metadata([table], {"t": {"description": "file", "columns": {"a": "file a", "b": "file b"}}})
    assert table.comment == "db"
    assert [c.comment for c in table.columns] == ["from db", "file b"]


def test_metadata_references_state_joins_the_database_does_not_declare(db_file: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    warnings: list[str] = []
    monkeypatch.setattr(descriptions.log, "warning", lambda fmt, *args: warnings.append(fmt % args))
    meta = tmp_path / "joins.yaml"
    meta.write_text("tables:\n  EVENTS:\n    references:\n      created_dt: nowhere.id\n"
                    "  Orders:\n    references:\n      Customer_ID: regions.code\n"
                    "  order_items:\n    references:\n      line_no: ORDERS.ID\n", encoding="utf-8")
    tables = _by_name(read_schema(Database(f"sqlite:///{db_file}"), sample_rows=0, metadata_path=meta))
    items = tables["order_items"]
    assert items.foreign_keys[-1] == ForeignKey(["line_no"], "orders", ["id"], origin="metadata")
    assert tables["orders"].foreign_keys == [ForeignKey(["customer_id"], "customers", ["id"])]  # declared wins
    assert tables["events"].foreign_keys == [ForeignKey(["customer"], "customers", ["id"])]
    assert warnings == ["metadata: events.created_dt references nowhere.id, which is not in the database; skipped"]
    assert "REFERENCES orders (id)" in table_ddl(items)


def test_sample_rows_latest_first(db_file: Path) -> None:
    db = Database(f"sqlite:///{db_file}")
    tables = _by_name(read_schema(db, sample_rows=2))
    assert [r["id"] for r in tables["orders"].sample_rows] == [2, 1]  # by order_date DESC, NULLs last
    assert [r["id"] for r in tables["customers"].sample_rows] == [2, 1]  # signup_date, not birth date
    assert [r["id"] for r in tables["events"].sample_rows] == [2, 1]  # name rule: created_dt
    assert [r["code"] for r in tables["regions"].sample_rows] == ["b", "a"]  # no date: first rows
    details = tables["Order Details"].sample_rows
    assert [r["Detail Id"] for r in details] == [2, 1] and details[0]["select"] == "y"
    assert set(tables["orders"].sample_rows[0]) == {"id", "customer_id", "order_date", "amount"}


def test_date_column_rules() -> None:
    def table(*cols: tuple[str, str]) -> TableInfo:
        return TableInfo("t", [ColumnInfo(n, ty) for n, ty in cols])

    assert date_column(table(("id", "INT"), ("created", "TIMESTAMP"))) == "created"
    assert date_column(table(("trade_dt", "TEXT"), ("made", "DATETIME"))) == "made"  # type beats name
    assert date_column(table(("id", "INT"), ("TRADEDT", "VARCHAR2(10)"))) == "TRADEDT"
    assert date_column(table(("birth_date", "DATE"), ("hire_date", "DATE"))) == "hire_date"
    assert date_column(table(("start_time", "INTEGER"),)) == "start_time"
    assert date_column(table(("id", "INT"), ("name", "TEXT"))) is None


def test_sample_query_quotes_identifiers() -> None:
    table = TableInfo("Order Details", [ColumnInfo("Ship Date", "DATE")])
    assert sample_query(table, 3, "sqlite") == (
        'SELECT * FROM "Order Details" ORDER BY "Ship Date" DESC LIMIT 3'
    )
    assert sample_query(TableInfo("T", [ColumnInfo("X", "INT")]), 5, "oracle") == (
        'SELECT * FROM "T" FETCH FIRST 5 ROWS ONLY'
    )


def test_table_ddl(db_file: Path) -> None:
    db_file.with_name("shop.metadata.yaml").write_text(METADATA, encoding="utf-8")
    tables = _by_name(read_schema(Database(f"sqlite:///{db_file}"), sample_rows=0))
    assert table_ddl(tables["orders"]) == "\n".join([
        "-- One row per checkout.",
        "CREATE TABLE orders (",
        "  id INTEGER PRIMARY KEY,",
        "  customer_id INTEGER REFERENCES customers (id),",
        "  order_date DATETIME,",
        "  amount NUMERIC(10, 2) -- Order total in EUR.",
        ");",
    ])
    assert table_ddl(tables["order_items"]).splitlines()[-2:] == [
        "  PRIMARY KEY (order_id, line_no)",
        ");",
    ]
    assert "  order_id INTEGER REFERENCES orders (id)," in table_ddl(tables["order_items"]).splitlines()
    assert table_ddl(tables["Order Details"]).splitlines()[:4] == [
        'CREATE TABLE "Order Details" (',
        '  "Detail Id" INTEGER PRIMARY KEY,',
        '  "Ship Date" TEXT,',
        '  "select" TEXT',
    ]


def test_quote_identifier() -> None:
    assert quote_identifier("Invoice") == "Invoice"
    assert quote_identifier("Invoice", "postgres") == '"Invoice"'
    assert quote_identifier("INVOICE", "oracle") == "INVOICE"
    assert quote_identifier("order") == '"order"'
    assert quote_identifier("my col", "mysql") == "`my col`"


def test_format_sample_rows(db_file: Path) -> None:
    tables = _by_name(read_schema(Database(f"sqlite:///{db_file}"), sample_rows=5))
    text = format_sample_rows(tables["order_items"], 1)
    lines = text.splitlines()
    assert lines[0] == "order_id | line_no | note"
    assert len(lines) == 2 and lines[1].startswith("1 | 1 | xxx") and lines[1].endswith("...")
    assert len(lines[1].split(" | ")[2]) == 40
    assert format_sample_rows(TableInfo("empty", []), 3) == ""


def test_missing_database_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.sqlite"
    with pytest.raises(FileNotFoundError, match="Database file not found"):
        read_schema(Database(f"sqlite:///{path}"))
    assert not path.exists()


class _FakeOracle:
    """Stands in for an Oracle Database: canned ALL_* catalog rows, sample rows for every table."""

    dialect = "oracle"
    sqlite_path = None

    def __init__(self) -> None:
        self.sample_sql: list[str] = []
        self.rows: dict[str, list[tuple[Any, ...]]] = {
            "tables": [("CUSTOMER",), ("INVOICE",)],
            "columns": [
                ("CUSTOMER", "CUSTOMERID", "NUMBER", 22, 10, 0, "N"),
                ("CUSTOMER", "NAME", "VARCHAR2", 40, None, None, "Y"),
                ("INVOICE", "INVOICEID", "NUMBER", 22, 10, 0, "N"),
                ("INVOICE", "CUSTOMERID", "NUMBER", 22, 10, 0, "N"),
                ("INVOICE", "INVOICEDATE", "DATE", 7, None, None, "N"),
                ("INVOICE", "TOTAL", "NUMBER", 22, 10, 2, "N"),
            ],
            "keys": [
                ("CUSTOMER", "PK_CUSTOMER", "P", "CUSTOMERID", None, None),
                ("INVOICE", "FK_INV_CUST", "R", "CUSTOMERID", "CUSTOMER", "CUSTOMERID"),
                ("INVOICE", "PK_INVOICE", "P", "INVOICEID", None, None),
            ],
            "table_comments": [("INVOICE", "Customer invoices.")],
            "column_comments": [("INVOICE", "TOTAL", "Total in USD.")],
        }

    def _catalog_rows(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        if sql == _ORACLE_QUERIES["owner"]:
            return [("CHINOOK",)]
        assert params == {"o": "CHINOOK"}
        return next(self.rows[k] for k, v in _ORACLE_QUERIES.items() if v == sql)

    def run_query(self, sql: str, *, row_cap: int | None = None) -> QueryResult:
        self.sample_sql.append(sql)
        return QueryResult(True, sql, ["X"], [(1,)])


def test_oracle_catalog() -> None:
    fake = _FakeOracle()
    tables = _by_name(read_schema(fake, sample_rows=2))  # type: ignore[arg-type]
    invoice = tables["INVOICE"]
    assert invoice.primary_key == ["INVOICEID"] and invoice.column("invoiceid").primary_key  # type: ignore[union-attr]
    assert invoice.foreign_keys == [ForeignKey(["CUSTOMERID"], "CUSTOMER", ["CUSTOMERID"])]
    assert invoice.comment == "Customer invoices."
    assert [c.type for c in invoice.columns] == ["NUMBER(10)", "NUMBER(10)", "DATE", "NUMBER(10,2)"]
    assert invoice.column("TOTAL").comment == "Total in USD."  # type: ignore[union-attr]
    assert tables["CUSTOMER"].column("NAME").type == "VARCHAR2(40)"  # type: ignore[union-attr]
    assert invoice.sample_rows == [{"X": 1}]
    assert (
        'SELECT * FROM "INVOICE" ORDER BY "INVOICEDATE" DESC NULLS LAST FETCH FIRST 2 ROWS ONLY'
        in fake.sample_sql
    )
    assert table_ddl(invoice, "oracle").splitlines()[:3] == [
        "-- Customer invoices.",
        "CREATE TABLE INVOICE (",
        "  INVOICEID NUMBER(10) PRIMARY KEY,",
    ]
