"""FK join graph: bridge tables along shortest join paths and readable join conditions (no store needed)."""

from __future__ import annotations

from database.joins import bridge_tables, join_graph, join_paths, join_tree

MARKETS_FKS: dict[str, list[tuple[str, str]]] = {
    "countries": [],
    "currencies": [],
    "exchanges": [("country_code", "countries.country_code"), ("currency_code", "currencies.currency_code")],
    "gics_sectors": [],
    "EQ_MSTR": [
        ("GICS_SECT", "gics_sectors.sector_code"), ("LIMAR", "exchanges.mic"),
        ("TRD_CCY", "currencies.currency_code"), ("ISS_CTRY", "countries.country_code"),
    ],
    "EQ_PX_D": [("EQ_ID", "EQ_MSTR.EQ_ID")],
    "EQ_DVD": [("EQ_ID", "EQ_MSTR.EQ_ID")],
    "indices": [("currency_code", "currencies.currency_code")],
    "IDX_CMP": [("IDX_ID", "indices.index_id"), ("EQ_ID", "EQ_MSTR.EQ_ID")],
    "index_levels": [("index_id", "indices.index_id")],
    "FX_RT_D": [("BASE_CCY", "currencies.currency_code"), ("QUOTE_CCY", "currencies.currency_code")],
}


def test_chain_a_b_c_adds_the_middle_table() -> None:
    graph = join_graph({"A": [("b_id", "B.id")], "B": [("c_id", "C.id")], "C": [], "D": []})
    assert bridge_tables(["A", "C"], graph) == ["B"]
    assert join_paths(["A", "C"], graph) == ["A.b_id = B.id", "B.c_id = C.id"]
    assert bridge_tables(["A", "B", "C"], graph) == []  # already connected
    assert bridge_tables(["A", "D"], graph) == []  # unreachable: no bridge, no error
    assert bridge_tables(["A"], graph) == [] and join_paths(["A"], graph) == []


def test_markets_price_and_exchange_need_the_equity_master() -> None:
    graph = join_graph(MARKETS_FKS)
    assert bridge_tables(["EQ_PX_D", "exchanges"], graph) == ["EQ_MSTR"]
    assert join_paths(["EQ_PX_D", "exchanges"], graph) == [
        "EQ_PX_D.EQ_ID = EQ_MSTR.EQ_ID",
        "EQ_MSTR.LIMAR = exchanges.mic",
    ]


def test_link_table_preferred_over_shared_lookup_parent() -> None:
    """indices and EQ_MSTR are 2 joins apart both via IDX_CMP (link table) and via currencies (shared
    parent); the lookup penalty picks the link table."""
    graph = join_graph(MARKETS_FKS)
    assert bridge_tables(["indices", "EQ_MSTR"], graph) == ["IDX_CMP"]
    assert bridge_tables(["EQ_PX_D", "index_levels"], graph) == []  # 4 joins > MAX_HOPS
    assert bridge_tables(["EQ_PX_D", "index_levels"], graph, max_hops=4) == ["EQ_MSTR", "IDX_CMP", "indices"]
    # a shared parent is still used when it is the only way
    assert bridge_tables(["FX_RT_D", "indices"], graph) == ["currencies"]


def test_max_hops_limits_bridges() -> None:
    chain = {"T0": [("n", "T1.id")], "T1": [("n", "T2.id")], "T2": [("n", "T3.id")], "T3": [("n", "T4.id")],
             "T4": []}
    graph = join_graph(chain)
    assert bridge_tables(["T0", "T4"], graph) == []  # 4 joins > MAX_HOPS
    assert bridge_tables(["T0", "T4"], graph, max_hops=4) == ["T1", "T2", "T3"]
    assert bridge_tables(["T0", "T3"], graph) == ["T1", "T2"]


def test_case_insensitive_refs_composite_keys_and_parallel_fks() -> None:
    graph = join_graph({
        "Flights": [("src", "AIRPORTS.code"), ("dst", "airports.code")],
        "airports": [],
        "legs": [("flight_no,day", "flights.no,day")],
        "orphan": [("x", "missing.id"), ("self_id", "orphan.id")],  # unknown target, self-reference
    })
    assert graph.canonical("FLIGHTS") == "Flights"
    assert join_paths(["Flights", "airports"], graph) == [
        "Flights.dst = airports.code (or Flights.src = airports.code)"
    ]
    assert join_paths(["legs", "Flights"], graph) == ["legs.flight_no = Flights.no AND legs.day = Flights.day"]
    assert graph.adj["orphan"] == []
    assert bridge_tables(["legs", "airports"], graph) == ["Flights"]


def test_greedy_tree_connects_terminals_in_rank_order() -> None:
    graph = join_graph(MARKETS_FKS)
    tree = join_tree(["EQ_PX_D", "exchanges", "countries"], graph)
    assert tree.bridges == ["EQ_MSTR"]
    # countries attaches to the tree by one join (either EQ_MSTR.ISS_CTRY or exchanges.country_code)
    assert len(tree.edges) == 3
    assert bridge_tables(["unknown", "EQ_PX_D"], graph) == []
