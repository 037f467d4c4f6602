"""Abbreviated copies of Spider-format databases: renamed schema, same rows, rewritten gold queries."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from eval.abbreviate import (
    RESERVED,
    RewriteError,
    abbreviate_name,
    build_copy,
    databases_from_dev,
    is_reserved,
    plan_renames,
    query_rows,
    read_tables,
    rewrite_sql,
)
from eval.datasets import load_spider

SCHEMA = """
CREATE TABLE departments (department_id INTEGER PRIMARY KEY, department_name TEXT NOT NULL, budget REAL,
                          location TEXT, "order" INTEGER, description TEXT);
CREATE TABLE employees (employee_id INTEGER PRIMARY KEY, employee_name TEXT, salary REAL, hire_date TEXT,
                        department_id INTEGER REFERENCES departments(department_id), phone_number TEXT);
INSERT INTO departments VALUES (1, 'Sales', 100.5, 'Paris', 2, 'sells'), (2, 'Research', 250.0, 'Oslo', 1, 'finds'),
                               (3, 'Legal', 80.0, 'Paris', 3, NULL);
INSERT INTO employees VALUES (1, 'Ana', 3000, '2020-01-02', 1, '555'), (2, 'Bo', 4200.5, '2021-03-04', 2, NULL),
                             (3, 'Caio', 3900, '2019-07-08', 2, '556'), (4, 'Di', 2500, '2022-11-12', 1, '557'),
                             (5, 'Eve', 5100, '2018-05-06', NULL, '558');
"""

GOLD = [
    ("Names of the employees with their department.",
     "SELECT T1.employee_name, T2.department_name FROM employees AS T1 JOIN departments AS T2 "
     "ON T1.department_id = T2.department_id"),
    ("Average salary per department, highest first.",
     "SELECT department_id, avg(salary), count(*) FROM employees GROUP BY department_id ORDER BY avg(salary) DESC"),
    ("Departments by total payroll.",
     "SELECT d.department_name AS dept, sum(e.salary) AS payroll FROM departments d JOIN employees e "
     "ON e.department_id = d.department_id WHERE d.location = \"Paris\" GROUP BY d.department_name "
     "HAVING payroll > 1000 ORDER BY payroll"),
]


@pytest.fixture()
def spider(tmp_path: Path) -> Path:
    folder = tmp_path / "src"
    (folder / "database" / "corp").mkdir(parents=True)
    with sqlite3.connect(folder / "database" / "corp" / "corp.sqlite") as conn:
        conn.executescript(SCHEMA)
    questions = [{"db_id": "other", "question": "unrelated", "query": "SELECT 1"}]
    questions += [{"db_id": "corp", "question": q, "query": sql} for q, sql in GOLD]
    (folder / "dev.json").write_text(json.dumps(questions))
    return folder


def tables_of(db_file: Path) -> list:
    conn = sqlite3.connect(db_file)
    try:
        return read_tables(conn)
    finally:
        conn.close()


def test_names_are_abbreviated_from_the_dictionary_or_without_vowels() -> None:
    assert abbreviate_name("customer_name") == "CUST_NM"
    assert abbreviate_name("departments") == "DEPT"
    assert abbreviate_name("salary", {"salary": "SLRY"}) == "SLRY"
    assert abbreviate_name("performance") == "PRFRMN"
    assert abbreviate_name("CustomerID") == "CUST_ID"
    assert is_reserved("DESC") and is_reserved("order") and is_reserved("MAX") and not is_reserved("DSC")


def test_build_renames_copies_rows_and_rewrites_gold(spider: Path, tmp_path: Path) -> None:
    out = tmp_path / "abbrev"
    report = build_copy(spider, out, ["corp"], seed=2026, column_share=0.5)
    rename = report.renames["corp"]
    assert (report.kept, report.dropped) == (3, [])
    new_tables = {old: t.name for old, t in rename.tables.items()}
    assert all(old.lower() != new.lower() for old, new in new_tables.items())
    changed = [(old, new) for t in rename.tables.values() for old, new in t.columns.items() if old.lower() != new.lower()]
    assert len(changed) == sum(len(t.columns) for t in rename.tables.values())
    assert any(new.startswith("c") and new[1:].isdigit() for _, new in changed)  # some positional codes
    names = [n for t in rename.tables.values() for n in (t.name, *t.columns.values())]
    assert not any(n.upper() in RESERVED for n in names)
    assert rename.tables["departments"].columns["order"] != "ORDER"

    copy_file = out / "database" / rename.new_db_id / f"{rename.new_db_id}.sqlite"
    source_file = spider / "database" / "corp" / "corp.sqlite"
    (employees,) = [t for t in tables_of(copy_file) if t.name == new_tables["employees"]]
    (fk,) = employees.foreign_keys
    assert fk.table == new_tables["departments"]
    assert fk.columns == [rename.tables["employees"].columns["department_id"]]
    assert fk.to == [rename.tables["departments"].columns["department_id"]]
    assert [c.name for c in employees.columns if c.pk] == [rename.tables["employees"].columns["employee_id"]]
    for old, new in new_tables.items():
        assert query_rows(copy_file, f"SELECT * FROM {new}") == query_rows(source_file, f"SELECT * FROM {old}")

    dev = json.loads((out / "dev.json").read_text())
    assert [d["source_index"] for d in dev] == [1, 2, 3]
    for row, (_, gold) in zip(dev, GOLD, strict=True):
        assert row["source_query"] == gold and row["query"] != gold
        assert query_rows(copy_file, row["query"]) == query_rows(source_file, gold)
    assert " AS dept" in dev[2]["query"] and "payroll" in dev[2]["query"] and " AS d " in dev[2]["query"]
    assert [it.qid for it in load_spider(out)] == ["spider-1", "spider-2", "spider-3"]
    saved = json.loads((out / "renames.json").read_text())
    assert saved["databases"]["corp"]["tables"]["employees"]["name"] == new_tables["employees"]
    assert saved["questions"]["kept"] == 3


def test_a_copy_without_foreign_keys_keeps_names_rows_and_questions(spider: Path, tmp_path: Path) -> None:
    keyed = build_copy(spider, tmp_path / "keyed", ["corp"], seed=2026, column_share=0.5)
    bare = build_copy(spider, tmp_path / "bare", ["corp"], seed=2026, column_share=0.5, foreign_keys=False)
    assert bare.renames == keyed.renames and bare.foreign_keys_dropped == {"corp": []}
    new_id = bare.renames["corp"].new_db_id
    copy_file = tmp_path / "bare" / "database" / new_id / f"{new_id}.sqlite"
    assert all(not t.foreign_keys for t in tables_of(copy_file))
    assert any(t.foreign_keys for t in tables_of(tmp_path / "keyed" / "database" / new_id / f"{new_id}.sqlite"))
    assert (tmp_path / "bare" / "dev.json").read_text() == (tmp_path / "keyed" / "dev.json").read_text()
    assert json.loads((tmp_path / "bare" / "renames.json").read_text())["foreign_keys"] is False


def test_same_seed_same_names_other_seed_other_names(spider: Path) -> None:
    tables = tables_of(spider / "database" / "corp" / "corp.sqlite")
    first = plan_renames(tables, "corp", 2026, column_share=0.5)
    assert plan_renames(tables, "corp", 2026, column_share=0.5) == first
    others = [plan_renames(tables, "corp", s, column_share=0.5) for s in range(1, 6)]
    assert any(o.tables != first.tables for o in others)
    assert all(o.new_db_id != first.new_db_id for o in others if o.tables != first.tables)


def test_a_failing_rewrite_is_dropped_and_counted(spider: Path, tmp_path: Path) -> None:
    questions = json.loads((spider / "dev.json").read_text())
    questions.append({"db_id": "corp", "question": "bad", "query": "SELECT * FROM no_such_table"})
    (spider / "dev.json").write_text(json.dumps(questions))
    report = build_copy(spider, tmp_path / "abbrev", ["corp"], seed=1)
    assert report.kept == 3 and [d["source_index"] for d in report.dropped] == [4]
    with pytest.raises(RewriteError):
        rewrite_sql("SELECT * FROM no_such_table", report.renames["corp"])


def test_subquery_outputs_and_correlated_columns_follow_the_renaming(spider: Path, tmp_path: Path) -> None:
    report = build_copy(spider, tmp_path / "abbrev", ["corp"], seed=3, column_share=1.0)
    rename = report.renames["corp"]
    copy_file = tmp_path / "abbrev" / "database" / rename.new_db_id / f"{rename.new_db_id}.sqlite"
    source_file = spider / "database" / "corp" / "corp.sqlite"
    for sql in ("SELECT s.employee_name FROM (SELECT employee_name, salary FROM employees) AS s WHERE s.salary > 3000",
                "SELECT employee_name FROM employees AS e WHERE salary > (SELECT avg(salary) FROM employees "
                "WHERE department_id = e.department_id)",
                "SELECT location FROM departments UNION SELECT employee_name FROM employees ORDER BY location"):
        assert query_rows(copy_file, rewrite_sql(sql, rename)) == query_rows(source_file, sql)


def test_databases_from_dev_is_a_seeded_choice(tmp_path: Path) -> None:
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps({"qid": f"spider-{i}", "db_id": f"db{i % 5}"}) + "\n" for i in range(20)))
    dbs, indices = databases_from_dev(path, 2, 2026)
    assert (dbs, indices) == databases_from_dev(path, 2, 2026)
    assert len(dbs) == 2 and dbs == sorted(dbs)
    assert indices == {i for i in range(20) if f"db{i % 5}" in dbs}
    with pytest.raises(ValueError):
        databases_from_dev(path, 6, 1)
