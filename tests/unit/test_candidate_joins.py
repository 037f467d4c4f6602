"""Name evidence of onboarding's candidate joins: which column names point at which table's key."""

from __future__ import annotations

import pytest

from retrieval.onboarding.joins import name_evidence


@pytest.mark.parametrize(("column", "table", "key"), [
    ("EQ_ID", "EQ_MSTR", "EQ_ID"),                         # the same name
    ("IDX_ID", "indices", "index_id"),                     # the same words once expanded
    ("customer_id", "customers", "id"),                    # names the table; the key is generic
    ("CTRY_CD", "countries", "country_code"),
    ("GICS_SECT", "gics_sectors", "sector_code"),          # the key's word abbreviated in the column
    ("start_station_id", "station", "id"),                 # a role before the table's name
])
def test_a_column_naming_the_table_and_its_key_points_at_it(column: str, table: str, key: str) -> None:
    assert name_evidence(column, table, key)


@pytest.mark.parametrize(("column", "table", "key"), [
    ("engineer_id", "Engineer_Visits", "engineer_visit_id"),    # the key's "visit" is not in the column
    ("customer_id", "Customer_Orders", "order_id"),             # a word of the table, another entity's key
    ("InvoiceId", "InvoiceLine", "InvoiceLineId"),
    ("maintenance_contract_id", "Maintenance_Engineers", "engineer_id"),
    ("id", "customers", "id"),                                  # generic words alone say nothing
])
def test_a_column_sharing_one_word_with_a_table_does_not_point_at_its_key(column: str, table: str, key: str) -> None:
    assert not name_evidence(column, table, key)
