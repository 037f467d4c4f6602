"""Hybrid table retrieval (dense + BM25, RRF), bridge tables and the retrieve_schema tool, on real Chroma."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, cast

import pytest

from core.settings import Settings
from database.joins import join_graph
from database.schema_types import ColumnInfo, ForeignKey, TableInfo
from retrieval.embeddings import OfflineMiniLM
from retrieval.hybrid import RRF_K, load_catalog, rrf_fuse, tokenize
from retrieval.indexing import index_tables
from retrieval.manifest import snapshot_id
from retrieval.retrievers import TableHit, retrieve_tables
from retrieval.store import ChromaStore
from retrieval.term_expansion import TermExpander, abbreviates
from tools.schema_retrieval import (
    RetrieveSchemaArgs,
    RetrieveSchemaTool,
    core_tables,
    estimate_tokens,
    select_within_budget,
)

NO_KNOWLEDGE = Settings(retrieval={"use_knowledge": False}, local_llm={"auto_start": False})
"""Settings of the tools' context: no knowledge file (its views would close the schema text)."""


@pytest.fixture
def store(tmp_path: Path, embedding_function: OfflineMiniLM) -> ChromaStore:
    return ChromaStore(tmp_path / "chroma", embedding_function)


def col(name: str, type_: str = "INTEGER", pk: bool = False) -> ColumnInfo:
    return ColumnInfo(name=name, type=type_, primary_key=pk)


def money_tables() -> list[TableInfo]:
    """Six well-documented 'amount' tables and one cryptic, undocumented one."""
    documented = [
        ("order_totals", ["order_id", "total_amount", "tax_amount"], "Total amount and tax of every customer order."),
        ("payments", ["payment_id", "amount", "paid_at"], "Payments received with their amount."),
        ("invoices", ["invoice_id", "amount_due", "due_date"], "Invoices and the amount due."),
        ("refunds", ["refund_id", "refund_amount"], "Refund amounts paid back to customers."),
        ("budgets", ["dept", "budget_amount"], "Yearly budget amount per department."),
        ("salaries", ["employee_id", "salary_amount"], "Salary amount of each employee."),
    ]
    tables = [TableInfo(n, [col(c) for c in cols], comment=doc) for n, cols, doc in documented]
    return [*tables, TableInfo("XQ_DV9", [col("K1"), col("ZZ_DVDAMT", "REAL"), col("QX_DT", "TEXT")])]


def hr_tables() -> list[TableInfo]:
    """employees -> departments -> locations (an A-B-C chain) plus two unrelated tables."""
    return [
        TableInfo("employees", [col("employee_id", pk=True), col("full_name", "TEXT"), col("dept_id")],
                  primary_key=["employee_id"], foreign_keys=[ForeignKey(["dept_id"], "departments", ["dept_id"])],
                  comment="Staff members of the company."),
        TableInfo("departments", [col("dept_id", pk=True), col("dept_code", "TEXT"), col("location_id")],
                  primary_key=["dept_id"],
                  foreign_keys=[ForeignKey(["location_id"], "locations", ["location_id"])]),
        TableInfo("locations", [col("location_id", pk=True), col("city", "TEXT"), col("country", "TEXT")],
                  primary_key=["location_id"], comment="Office sites: city and country."),
        TableInfo("weather_readings", [col("station", "TEXT"), col("temp_c", "REAL")],
                  comment="Temperature readings of weather stations."),
        TableInfo("products", [col("product_id", pk=True), col("title", "TEXT"), col("price", "REAL")],
                  primary_key=["product_id"], comment="Catalogue of items for sale."),
    ]


def test_tokenize_splits_identifiers_and_keeps_them_whole() -> None:
    assert tokenize("EQ_PX_D.PX_LST") == ["eq_px_d", "eq", "px", "d", "px_lst", "px", "lst"]
    assert tokenize("CustomerId") == ["customerid", "customer", "id"]
    assert tokenize("What are the closing prices of the companies?") == ["closing", "price", "company"]
    assert tokenize("HTTPServer2024") == ["httpserver2024", "http", "server", "2024"]


def test_abbreviation_rules_are_generic_prefixes_and_consonant_skeletons() -> None:
    for part, word in [("cust", "customer"), ("cstmr", "customer"), ("dtntn", "detention"), ("dept", "department"),
                       ("qty", "quantity"), ("pmt", "payment"), ("drvr", "driver"), ("addr", "address")]:
        assert abbreviates(part, word), (part, word)
    assert not abbreviates("nm", "name")  # two letters fit too many words
    assert not abbreviates("cat", "contract")  # after the shared "c", abbreviations drop vowels, not keep them
    assert not abbreviates("customer", "customer") and not abbreviates("xst", "customer")
    assert not abbreviates("ctsmr", "customer")  # letters out of order
    expander = TermExpander(["cstmr", "id", "dtntn", "smry", "c17", "t"])
    assert len(expander) == 3  # codes, one-letter and two-letter parts are never candidates
    assert expander.expand(["customer", "detention", "summary"]) == {"cstmr": "customer", "dtntn": "detention",
                                                                     "smry": "summary"}
    spelled = TermExpander(["cstmr", "customer"])
    assert spelled.expand(["customer"]) == {}  # the schema spells the word out: nothing is guessed


def cryptic_tables() -> list[TableInfo]:
    """Warehouse-style tables the questions name in plain words, among the documented money tables."""
    return [*money_tables(),
            TableInfo("CSTMR", [col("CSTMR_ID", pk=True), col("CSTMR_NM", "TEXT"), col("CTY_CD", "TEXT")]),
            TableInfo("DTNTN", [col("DTNTN_ID", pk=True), col("DTNTN_SMRY", "TEXT"), col("CSTMR_ID")]),
            TableInfo("EMPL_SLRY", [col("EMPL_ID"), col("SLRY_AMT", "REAL")])]


def test_plain_words_find_abbreviated_tables_lexically(store: ChromaStore) -> None:
    index_tables(store, "dw", "sqlite", cryptic_tables(), sample_rows=0)
    catalog = load_catalog(store, "dw")
    assert catalog is not None
    terms = catalog.query_terms("Return all detention summaries of customers")
    assert terms == {"customer": 1.0, "dtntn": 0.5, "smry": 0.5, "cstmr": 0.5}  # "customer": in a description
    assert [n for n, _ in catalog.lexical_ranking("Return all detention summaries", 3)] == ["DTNTN"]
    assert "CSTMR" in dict(catalog.lexical_ranking("How many customers are there?", 10))
    assert retrieve_tables(store, "dw", "Summaries of every detention", 1)[0].name == "DTNTN"


def test_lexical_ranking_leaves_out_tables_far_below_the_best() -> None:
    """A stray match a tenth below the best is no evidence (it would still earn rank-fusion credit)."""
    from rank_bm25 import BM25Okapi

    from retrieval.hybrid import LEXICAL_FLOOR, TableCatalog

    corpus = [["payment", "payment", "amount"], ["note"] * 200 + ["payment"], *[[f"w{i}", f"v{i}"] for i in range(4)]]
    catalog = TableCatalog("x", None, ["PMT", "NOTES", "A", "B", "C", "D"], {}, {}, bm25=BM25Okapi(corpus))
    assert catalog.bm25 is not None
    scores = catalog.bm25.get_scores(["payment", "amount"])
    assert 0 < scores[1] < LEXICAL_FLOOR * scores[0]
    assert [n for n, _ in catalog.lexical_ranking("payment amounts", 5)] == ["PMT"]
    assert [n for n, _ in catalog.lexical_ranking("payments", 5)] == ["PMT", "NOTES"]  # within a tenth: kept


def test_rrf_fusion_rewards_agreement() -> None:
    fused = rrf_fuse([["a", "b", "c"], ["b", "c", "d"]])
    assert [name for name, _ in fused] == ["b", "c", "a", "d"]
    scores = dict(fused)
    assert scores["b"] == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert scores["c"] == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 2))
    assert scores["a"] == pytest.approx(1 / (RRF_K + 1))
    # 1st + 3rd narrowly beats 2nd + 2nd (1/61 + 1/63 > 2/62)
    assert [n for n, _ in rrf_fuse([["a", "b", "c"], ["c", "b", "a"]])][:1] == ["a"]
    # ties: the better best rank first, then the earlier ranking
    assert [n for n, _ in rrf_fuse([["x", "y"], ["y", "x"]])] == ["x", "y"]
    assert [n for n, _ in rrf_fuse([["p"], ["q"]])] == ["p", "q"]
    assert rrf_fuse([]) == []


def test_bm25_finds_cryptic_table_dense_misses(store: ChromaStore) -> None:
    index_tables(store, "money", "sqlite", money_tables(), sample_rows=0)
    question = "What was the total amount of ZZ_DVDAMT paid?"
    dense = [h.name for h in retrieve_tables(store, "money", question, 3, mode="dense")]
    hybrid = retrieve_tables(store, "money", question, 3)
    assert "XQ_DV9" not in dense
    assert "XQ_DV9" in [h.name for h in hybrid]
    cryptic = next(h for h in hybrid if h.name == "XQ_DV9")
    assert cryptic.lexical_score is not None and cryptic.lexical_score > 0
    assert cryptic.dense_score is not None and -1.0 <= cryptic.dense_score <= 1.0
    with pytest.raises(ValueError, match="mode"):
        retrieve_tables(store, "money", question, 3, mode=cast(Any, "sparse"))


def test_bridge_table_added_for_chain(store: ChromaStore) -> None:
    index_tables(store, "hr", "sqlite", hr_tables(), sample_rows=0)
    hits = retrieve_tables(store, "hr", "How many employees work in each city?", 2, with_bridges=True)
    assert [(h.name, h.bridge) for h in hits] == [
        ("employees", False), ("locations", False), ("departments", True)
    ]
    assert "CREATE TABLE departments" in hits[2].schema_document and hits[2].score == 0.0
    assert [h.name for h in retrieve_tables(store, "hr", "employees per city", 2)] == ["employees", "locations"]
    catalog = load_catalog(store, "hr")
    assert catalog is not None and catalog.columns["locations"] == ["location_id", "city", "country"]


def test_catalog_cache_follows_the_snapshot(store: ChromaStore) -> None:
    tables = hr_tables()
    index_tables(store, "hr", "sqlite", tables, sample_rows=0)
    first = load_catalog(store, "hr")
    assert first is not None and load_catalog(store, "hr") is first  # cached
    tables.append(TableInfo("PX_LST_HIST", [col("TRD_DT", "TEXT"), col("PX_LST", "REAL")]))
    index_tables(store, "hr", "sqlite", tables, sample_rows=0)
    second = load_catalog(store, "hr")
    assert second is not first and second is not None and "PX_LST_HIST" in second.names
    assert second.snapshot == snapshot_id(store, "hr") != first.snapshot
    assert retrieve_tables(store, "hr", "PX_LST history", 1)[0].name == "PX_LST_HIST"


def hit(name: str, tokens: int) -> TableHit:
    return TableHit(name, 1.0, "x" * int(3.5 * tokens))


def test_budget_keeps_bridges_before_lower_ranked_tables() -> None:
    graph = join_graph({"A": [("b_id", "B.id")], "B": [("c_id", "C.id")], "C": [], "D": [], "E": []})
    ranked = [hit("A", 100), hit("C", 100), hit("D", 100), hit("E", 100)]

    def lookup(name: str) -> TableHit:
        return TableHit(name, 0.0, "y" * 350, bridge=True)

    chosen = select_within_budget(ranked, 8, 320, graph=graph, lookup=lookup)
    assert [(h.name, h.bridge) for h in chosen] == [("A", False), ("B", True), ("C", False)]
    # without a graph the old behaviour: best-ranked tables that fit
    assert [h.name for h in select_within_budget(ranked, 8, 320)] == ["A", "C", "D"]
    # a table whose bridge does not fit is taken alone
    assert [h.name for h in select_within_budget(ranked, 8, 220, graph=graph, lookup=lookup)] == ["A", "C"]
    # everything fits: shown whole, canonical order
    assert [h.name for h in select_within_budget(ranked, 2, 10_000, graph=graph, lookup=lookup)] == [
        "A", "B", "C", "D", "E"
    ]


def test_tool_reports_bridges_join_paths_and_snapshot(store: ChromaStore) -> None:
    index_tables(store, "hr", "sqlite", hr_tables(), sample_rows=0)
    ctx = cast(Any, types.SimpleNamespace(settings=NO_KNOWLEDGE, store=store, catalog=lambda: load_catalog(store, "hr"),
        db=types.SimpleNamespace(key="hr")))
    tool = RetrieveSchemaTool()
    catalog = load_catalog(store, "hr")
    assert catalog is not None
    three = sum(estimate_tokens(catalog.schema_doc(n)) for n in ("employees", "departments", "locations"))
    args = RetrieveSchemaArgs(query="How many employees work in each city?", k=2, budget=three + 2,
                              core_fraction=0.0)
    result = tool.run(args, ctx)
    assert result.ok and result.kind == "schema"
    assert result.value["tables"] == ["departments", "employees", "locations"]
    assert result.value["bridges"] == ["departments"]
    assert result.value["join_paths"] == [
        "employees.dept_id = departments.dept_id", "departments.location_id = locations.location_id"
    ]
    assert result.text.index("CREATE TABLE departments") < result.text.index("CREATE TABLE employees")
    assert "location_id = locations.location_id" not in result.text.split("CREATE TABLE locations")[0]
    assert "Join paths" not in result.text  # they vary per question: the generator's user message has them
    assert result.value["snapshot"] == snapshot_id(store, "hr")
    missing = tool.run(RetrieveSchemaArgs(query="x"), cast(Any, types.SimpleNamespace(
        settings=NO_KNOWLEDGE, store=store, catalog=lambda: load_catalog(store, "nope"),
        db=types.SimpleNamespace(key="nope"))))
    assert not missing.ok and "nl2sql index" in (missing.error or "")


def test_core_block_is_the_most_connected_tables_and_comes_first(store: ChromaStore) -> None:
    tables = [*hr_tables(), *money_tables()]
    index_tables(store, "mix", "sqlite", tables, sample_rows=0)
    catalog = load_catalog(store, "mix")
    assert catalog is not None
    cost = {n: estimate_tokens(catalog.schema_doc(n)) for n in catalog.names}
    # departments joins two tables, employees and locations one each; tables without FKs are never core
    assert core_tables(catalog, cost["departments"]) == ["departments"]
    assert core_tables(catalog, 10_000) == ["departments", "employees", "locations"]
    assert core_tables(catalog, 0) == []
    ranked = [TableHit(n, 1.0, catalog.schema_doc(n)) for n in ("payments", "invoices", "departments")]

    def lookup(name: str) -> TableHit:
        return TableHit(name, 0.0, catalog.schema_doc(name), bridge=True)

    budget = cost["departments"] + cost["payments"] + cost["invoices"]
    chosen = select_within_budget(ranked, 8, budget, graph=catalog.graph, lookup=lookup, core=["departments"])
    assert [h.name for h in chosen] == ["departments", "invoices", "payments"]
    chosen = select_within_budget(ranked, 8, budget - 1, graph=catalog.graph, lookup=lookup,
                                  core=["departments"])
    assert [h.name for h in chosen] == ["departments", "payments"]  # core first, then the best that fits


def test_schema_prefix_is_byte_identical_across_questions_and_roles(store: ChromaStore) -> None:
    """One database, a schema over budget: the core block opens every question's and every role's prompt."""
    from prompts import insights as insights_prompt
    from prompts.schema_prefix import schema_prefix
    from tools.candidate import system_prompt

    index_tables(store, "mix", "sqlite", [*hr_tables(), *money_tables()], sample_rows=0)
    catalog = load_catalog(store, "mix")
    assert catalog is not None
    core = sum(estimate_tokens(catalog.schema_doc(n)) for n in ("departments", "employees", "locations"))
    ctx = cast(Any, types.SimpleNamespace(settings=NO_KNOWLEDGE, store=store, catalog=lambda: load_catalog(store, "mix"),
        db=types.SimpleNamespace(key="mix")))
    texts = [RetrieveSchemaTool().run(RetrieveSchemaArgs(query=q, budget=2 * core + 40, core_fraction=0.5), ctx)
             for q in ("Total refund amount?", "Salary of each employee by city", "Budget per department")]
    assert all(r.ok and r.value["core"] == ["departments", "employees", "locations"] for r in texts)
    assert len({r.text for r in texts}) == 3  # the question's own tables differ...
    block = "\n\n".join(catalog.schema_doc(n) for n in ("departments", "employees", "locations"))
    prompts = []
    for r in texts:
        generator = system_prompt("sqlite", r.text)
        insights = insights_prompt.SYSTEM.format(schema_prefix=schema_prefix("sqlite", r.text), dialect="sqlite")
        prompts += [generator, insights]
    opening = schema_prefix("sqlite", block).rstrip()
    assert all(p.startswith(opening) for p in prompts)  # ...behind the same bytes for every question and role


def test_join_paths_partial_only_when_some_table_is_left_out(store: ChromaStore) -> None:
    """``partial``: a schema shown whole states its foreign keys in the DDL, so no paths; a cut schema gets them."""
    index_tables(store, "hr", "sqlite", hr_tables(), sample_rows=0)
    ctx = cast(Any, types.SimpleNamespace(settings=NO_KNOWLEDGE, store=store, catalog=lambda: load_catalog(store, "hr"),
        db=types.SimpleNamespace(key="hr")))
    catalog = load_catalog(store, "hr")
    assert catalog is not None
    three = sum(estimate_tokens(catalog.schema_doc(n)) for n in ("employees", "departments", "locations"))
    question = "How many employees work in each city?"

    def paths(mode: str, budget: int) -> list[str]:
        args = RetrieveSchemaArgs(query=question, k=2, budget=budget, core_fraction=0.0, join_paths=mode)
        result = RetrieveSchemaTool().run(args, ctx)
        assert result.ok
        return list(result.value["join_paths"])

    whole = 10_000
    assert paths("always", whole) and paths("always", three + 2)
    assert paths("partial", whole) == []
    assert set(catalog.names) > {"employees", "departments", "locations"}  # the small budget leaves tables out
    assert paths("partial", three + 2) == paths("always", three + 2) != []
    assert paths("never", three + 2) == []


def test_whole_schema_system_prompt_is_identical_and_join_paths_go_to_the_user_message(store: ChromaStore) -> None:
    """A schema that fits the budget: the generator's whole system prompt is the same bytes for every question
    (llama.cpp's prompt cache then serves all of it); the question's join paths are in the user message."""
    from tools.base import ToolCall
    from tools.candidate import system_prompt
    from tools.generation import GenerateSQLTool

    index_tables(store, "mix", "sqlite", [*hr_tables(), *money_tables()], sample_rows=0)
    ctx = cast(Any, types.SimpleNamespace(settings=NO_KNOWLEDGE, store=store, catalog=lambda: load_catalog(store, "mix"),
        db=types.SimpleNamespace(key="mix", dialect="sqlite"),
                                          history=[]))
    questions = ("How many employees work in each city?", "Total refund amount per invoice?")
    results = [RetrieveSchemaTool().run(RetrieveSchemaArgs(query=q, budget=10_000), ctx) for q in questions]
    assert results[0].value["join_paths"] != results[1].value["join_paths"]
    assert len({system_prompt("sqlite", r.text) for r in results}) == 1
    for question, result in zip(questions, results, strict=True):
        call = ToolCall(question=question, step_id="#E2", tool="generate_sql", input=question,
                        refs={"#E1": result})
        args = GenerateSQLTool().build_args(call, ctx)
        assert args.schema_context == result.text
        for path in result.value["join_paths"]:
            assert f"- {path}" in args.joins
