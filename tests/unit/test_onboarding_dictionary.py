"""A team's data dictionary imported as reviewed descriptions: files read, schema matched, reviewed text kept."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cli.main import main
from core.errors import ConfigurationError
from core.settings import Settings
from database.connection import Database
from database.descriptions import default_enriched_path, dump_enriched, load_enriched, write_atomic
from database.schema_reader import read_schema
from retrieval.onboarding import run_onboarding
from retrieval.onboarding.dictionary import DictionaryRow, import_dictionary, read_dictionary
from tests.unit.onboarding_fixtures import bare, make_job  # noqa: F401 (fixture)

CSV = """Table Name,Field,Business Definition
ord_txn,AMT,"Order amount in US dollars, taxes included."
ORD_TXN,STS_CD,"Order status: OPEN, SHIP (shipped) or CANC (cancelled)."
ORD_TXN,,One row per customer order.
CUST_MSTR,CUST_NM,A name the dictionary also has.
CUST_MSTR,NO_SUCH,Not in the schema.
GHOST,,Not in the schema either.
ORD_TXN,ORD_DT,
"""


def _tables(settings: Settings) -> list:
    return read_schema(Database.from_settings(settings), sample_rows=0, use_enriched=False)


def test_csv_tsv_xlsx_and_yaml_are_read_with_loose_headers(tmp_path: Path) -> None:
    (tmp_path / "d.csv").write_text(CSV, encoding="utf-8-sig")
    rows = read_dictionary(tmp_path / "d.csv")
    assert DictionaryRow("ord_txn", "AMT", "Order amount in US dollars, taxes included.") in rows
    assert DictionaryRow("ORD_TXN", None, "One row per customer order.") in rows
    assert len(rows) == 6  # the row without a description is left out
    frame = pd.read_csv(tmp_path / "d.csv", dtype=str)
    frame.to_csv(tmp_path / "d.tsv", sep="\t", index=False)
    frame.to_excel(tmp_path / "d.xlsx", index=False)
    assert read_dictionary(tmp_path / "d.tsv") == rows == read_dictionary(tmp_path / "d.xlsx")
    (tmp_path / "d.yaml").write_text("tables:\n  ORD_TXN:\n    description: Orders.\n    columns:\n      AMT: Amount.\n")
    assert read_dictionary(tmp_path / "d.yaml") == [DictionaryRow("ORD_TXN", None, "Orders."),
                                                    DictionaryRow("ORD_TXN", "AMT", "Amount.")]


@pytest.mark.parametrize(("name", "content", "message"), [
    ("missing.csv", None, "no data dictionary at"),
    ("d.csv", "name,notes\nx,y\n", "has no table header"),
    ("d.docx", "x", "is not .csv, .tsv, .xlsx or .yaml"),
    ("d.xlsx", "not a spreadsheet", "cannot read the data dictionary d.xlsx"),
    ("d.yaml", "- a list\n", "has no 'tables' mapping"),
])
def test_a_bad_dictionary_is_a_clear_configuration_error(tmp_path: Path, name: str, content: str | None,
                                                         message: str) -> None:
    if content is not None:
        (tmp_path / name).write_text(content)
    with pytest.raises(ConfigurationError, match=message):
        read_dictionary(tmp_path / name)


def test_import_writes_reviewed_text_and_keeps_what_people_wrote(bare: Settings, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "shop.enriched.yaml"
    write_atomic(out, dump_enriched({"tables": {"ORD_TXN": {"description": None, "columns": {
        "AMT": {"text": "Drafted guess.", "status": "pending"},
        "STS_CD": {"text": "Reviewed by a person.", "status": "approved"}}}}}))
    (tmp_path / "d.csv").write_text(CSV)
    report = import_dictionary(_tables(bare), read_dictionary(tmp_path / "d.csv"), out, source="d.csv")
    assert (report.tables, report.columns) == (1, 1)
    assert sorted(report.kept) == ["CUST_MSTR.CUST_NM", "ORD_TXN.STS_CD"]  # metadata comment; approved entry
    assert sorted(report.unknown) == ["CUST_MSTR.NO_SUCH", "GHOST"]
    data = load_enriched(out)["tables"]["ORD_TXN"]
    assert data["columns"]["AMT"] == {"text": "Order amount in US dollars, taxes included.", "status": "edited",
                                      "model": "dictionary:d.csv", "generated": None}  # the draft replaced
    assert data["columns"]["STS_CD"]["text"] == "Reviewed by a person."
    assert data["description"]["text"] == "One row per customer order."
    forced = import_dictionary(_tables(bare), read_dictionary(tmp_path / "d.csv"), out, source="d.csv",
                               overwrite=True)
    assert "ORD_TXN.STS_CD" not in forced.kept and "CUST_MSTR.CUST_NM" in forced.kept  # the database's stays
    schema = read_schema(Database.from_settings(bare), sample_rows=0, enriched_path=out)
    amt = next(c for t in schema if t.name == "ORD_TXN" for c in t.columns if c.name == "AMT")
    assert amt.comment == "Order amount in US dollars, taxes included." and not amt.drafted


def test_onboarding_imports_before_describing_and_the_model_skips_those(bare: Settings, tmp_path: Path) -> None:  # noqa: F811
    (tmp_path / "d.csv").write_text(CSV)
    job = make_job(bare, dictionary=tmp_path / "d.csv")
    report = run_onboarding(job)
    steps = {s.name: s for s in report.steps}
    assert steps["dictionary"].status == "done" and steps["dictionary"].items == 3
    assert "2 rows name nothing in the schema" in steps["dictionary"].note
    enriched = load_enriched(default_enriched_path(job.db, bare.state_dir))["tables"]
    assert enriched["ORD_TXN"]["columns"]["AMT"]["status"] == "edited"
    assert enriched["ORD_TXN"]["columns"]["ORD_DT"]["status"] == "pending"  # described by the model
    described = {(q.table, q.column) for q in report.queue if q.kind == "description"}
    assert ("ORD_TXN", "ORD_DT") in described and not described & {("ORD_TXN", "AMT"), ("ORD_TXN", "STS_CD"),
                                                                  ("ORD_TXN", None)}  # reviewed: not queued
    again = run_onboarding(make_job(bare, dictionary=tmp_path / "d.csv"))
    assert next(s for s in again.steps if s.name == "dictionary").status == "resumed"


def test_the_cli_reads_the_dictionary_before_any_step(bare: Settings, tmp_path: Path,  # noqa: F811
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NL2SQL_STATE_DIR", str(bare.state_dir))
    assert main(["onboard", "--database", bare.database_url, "--dictionary", str(tmp_path / "none.csv")]) == 2
    err = capsys.readouterr().err
    assert "Error: no data dictionary at" in err and "Traceback" not in err
    assert not (bare.state_dir / "onboarding").exists()  # nothing started
