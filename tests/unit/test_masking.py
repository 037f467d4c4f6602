"""Sensitive-data masking: column-name patterns, masked copies, and Chinook end to end."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from core.settings import PROJECT_ROOT, Settings
from database.connection import Database
from database.masking import MASK, default_patterns, is_sensitive, mask_table, snake_case
from database.schema_reader import read_schema
from database.schema_types import ColumnInfo, ColumnProfile, TableInfo
from retrieval.documents import description_document, schema_document

CHINOOK = PROJECT_ROOT / "data" / "chinook" / "Chinook_Sqlite.sqlite"
PATTERNS = default_patterns()

SENSITIVE = [
    "Email", "email_address", "EMAIL", "Phone", "home_phone", "cell_mobile_number", "Fax", "FirstName",
    "first_name", "LASTNAME", "last_name", "FullName", "full_name", "contact_name", "ContactName", "Fname",
    "LName", "middle_name", "surname", "BirthDate", "date_of_birth", "DOB", "CustDOB", "Address",
    "BillingAddress", "street", "PostalCode", "zip_code", "ZIP", "post_code", "SSN", "passport_no", "IBAN",
    "account_number", "AccountNumber", "card_number", "CreditCard",
]
NOT_SENSITIVE = [
    "Name", "CO_NM", "company_name", "CompanyName", "Company", "product_name", "ProductName",
    "exchange_name", "country_name", "Country", "index_name", "currency_name", "sector_name", "TICKER", "ISIN",
    "City", "address_id", "AddressId", "Title", "Composer", "classname", "cardinality", "InvoiceDate",
]


@pytest.mark.parametrize("name", SENSITIVE)
def test_sensitive_names(name: str) -> None:
    assert is_sensitive(name, PATTERNS)


@pytest.mark.parametrize("name", NOT_SENSITIVE)
def test_not_sensitive_names(name: str) -> None:
    assert not is_sensitive(name, PATTERNS)


def test_settings_default_and_snake_case() -> None:
    assert Settings().retrieval.sensitive_patterns == PATTERNS
    assert not is_sensitive("Email", [])
    assert snake_case("BillingPostalCode") == "billing_postal_code"
    assert snake_case("CustDOB") == "cust_dob" and snake_case("E-Mail Address") == "e_mail_address"


def test_mask_table_returns_masked_copy() -> None:
    email = ColumnInfo("email", "TEXT", profile=ColumnProfile(kind="text", row_count=3, distinct_count=2,
                                                              top_values=[("a@x.io", 2), ("b@y.io", 1)]))
    born = ColumnInfo("birth_date", "TEXT", profile=ColumnProfile(kind="date", row_count=3, min="1980-01-01",
                                                                  max="2001-02-03"))
    city = ColumnInfo("city", "TEXT", profile=ColumnProfile(kind="text", row_count=3, distinct_count=1,
                                                            top_values=[("Oslo", 3)]))
    rows: list[dict[str, Any]] = [{"email": "a@x.io", "birth_date": "1980-01-01", "city": "Oslo"},
            {"email": None, "birth_date": "2001-02-03", "city": "Oslo"}]
    table = TableInfo("people", [email, born, city], sample_rows=rows)
    masked = mask_table(table, PATTERNS)

    assert masked.sample_rows == [{"email": MASK, "birth_date": MASK, "city": "Oslo"},
                                  {"email": None, "birth_date": MASK, "city": "Oslo"}]
    m_email, m_born, m_city = (masked.column(n) for n in ("email", "birth_date", "city"))
    assert m_email is not None and m_email.profile is not None and m_email.profile.masked
    assert m_email.profile.top_values == [(MASK, 2), (MASK, 1)]
    assert m_born is not None and m_born.profile is not None
    assert (m_born.profile.min, m_born.profile.max) == (MASK, MASK)
    assert m_city is not None and m_city.profile is not None and m_city.profile.top_values == [("Oslo", 3)]
    assert table.sample_rows[0]["email"] == "a@x.io"  # the original is untouched
    assert email.profile is not None and email.profile.top_values[0] == ("a@x.io", 2)
    doc = schema_document(masked, "sqlite")
    assert "a@x.io" not in doc and "1980-01-01" not in doc and "'Oslo'" in doc


@pytest.fixture(scope="module")
def chinook() -> dict[str, TableInfo]:
    db = Database(f"sqlite:///{CHINOOK}")
    return {t.name: t for t in read_schema(db, sample_rows=5, profile=True, sensitive_patterns=PATTERNS)}


def _raw(sql: str) -> list[tuple]:
    with sqlite3.connect(f"{Path(CHINOOK).as_uri()}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchall()


def test_chinook_customer_masked(chinook: dict[str, TableInfo]) -> None:
    customer = chinook["Customer"]
    assert len(customer.sample_rows) == 5
    for row in customer.sample_rows:
        for name in ("FirstName", "LastName", "Email", "Phone", "Address"):
            assert row[name] == MASK, name
        assert row["Country"] not in (None, MASK) and row["CustomerId"] != MASK
    for name in ("FirstName", "LastName", "Email", "Phone", "Address"):
        col = customer.column(name)
        assert col is not None and col.profile is not None and col.profile.masked
    employee = chinook["Employee"]
    assert all(row["BirthDate"] == MASK for row in employee.sample_rows)


def test_chinook_names_of_things_not_masked(chinook: dict[str, TableInfo]) -> None:
    artists = {name for (name,) in _raw("SELECT Name FROM Artist")}
    tracks = {name for (name,) in _raw("SELECT Name FROM Track")}
    assert chinook["Artist"].sample_rows and all(r["Name"] in artists for r in chinook["Artist"].sample_rows)
    assert chinook["Track"].sample_rows and all(r["Name"] in tracks for r in chinook["Track"].sample_rows)


def test_masked_values_never_reach_documents(chinook: dict[str, TableInfo]) -> None:
    text = "\n".join(schema_document(t, "sqlite", sample_rows=5) + description_document(t)
                     for t in chinook.values())
    assert MASK in text
    secrets = _raw("SELECT Email, Phone, Address, FirstName || ' ' || LastName FROM Customer "
                   "UNION ALL SELECT Email, Phone, Address, FirstName || ' ' || LastName FROM Employee")
    for row in secrets:
        for value in row:
            if value:
                assert value not in text, value
