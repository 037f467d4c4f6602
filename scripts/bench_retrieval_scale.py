"""Scale benchmark of schema retrieval: 1,000 synthetic tables / 20,000 columns, hybrid stage 1 + 2.

Builds a plausible enterprise-like schema directly as :class:`TableInfo` objects (no database): 25 business
domains x 40 entities, snake_case and cryptic upper-case names (``FIN_INV_HDR``, ``AMT_LCL``), 20 columns per
table, about half the tables and a third of the columns documented, 0-3 foreign keys per table to earlier
tables. Indexes it into a temporary Chroma folder with the offline MiniLM, then times ~200 questions generated
from random tables (with the table as the answer, so recall@k is printed too).

Prints: index build time (and a no-change refresh), peak RSS (``resource.getrusage``, MB), the cold first query
(builds the BM25 / FK-graph catalog), and p50/p95/max latency of (a) ``retrieve_tables(k=8, with_bridges=True)``
and (b) the full ``retrieve_schema`` tool run (k=30 ranking, token budget, bridges, join paths), plus the share
of (a) spent embedding the question. Target: p95 < 100 ms on 2 cores.

Usage: ``python scripts/bench_retrieval_scale.py [--tables 1000] [--columns 20] [--queries 200] [--seed 0]``
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.settings import Settings  # noqa: E402
from database.schema_types import ColumnInfo, ForeignKey, TableInfo  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.hybrid import load_catalog  # noqa: E402
from retrieval.indexing import sync_tables  # noqa: E402
from retrieval.manifest import refresh_snapshot  # noqa: E402
from retrieval.retrievers import retrieve_tables  # noqa: E402
from retrieval.store import ChromaStore  # noqa: E402
from tools.schema_retrieval import RetrieveSchemaArgs, RetrieveSchemaTool  # noqa: E402

DOMAINS = [("sales", "SLS"), ("finance", "FIN"), ("hr", "HR"), ("inventory", "INV"), ("logistics", "LOG"),
           ("marketing", "MKT"), ("crm", "CRM"), ("risk", "RSK"), ("trading", "TRD"), ("treasury", "TRS"),
           ("procurement", "PRC"), ("billing", "BIL"), ("support", "SUP"), ("payroll", "PAY"),
           ("compliance", "CMP"), ("manufacturing", "MFG"), ("quality", "QA"), ("retail", "RTL"),
           ("insurance", "INS"), ("claims", "CLM"), ("lending", "LND"), ("web", "WEB"), ("fleet", "FLT"),
           ("energy", "NRG"), ("research", "RSC")]
ENTITIES = [("customer", "CUST"), ("order", "ORD"), ("invoice", "INVC"), ("product", "PRD"), ("supplier", "SUPP"),
            ("employee", "EMP"), ("account", "ACCT"), ("payment", "PMT"), ("shipment", "SHP"), ("warehouse", "WH"),
            ("contract", "CNTR"), ("ticket", "TKT"), ("campaign", "CMPN"), ("vehicle", "VEH"), ("meter", "MTR"),
            ("policy", "POL"), ("claim", "CLM"), ("loan", "LN"), ("position", "POS"), ("trade", "TRD"),
            ("portfolio", "PF"), ("budget", "BDG"), ("forecast", "FCST"), ("region", "RGN"), ("store", "STR"),
            ("device", "DEV"), ("session", "SESS"), ("lead", "LEAD"), ("opportunity", "OPP"), ("asset", "AST"),
            ("ledger", "LDG"), ("journal", "JRNL"), ("batch", "BTCH"), ("inspection", "INSP"),
            ("incident", "INC"), ("project", "PRJ"), ("task", "TSK"), ("vendor", "VND"), ("rate", "RT"),
            ("price", "PX")]
KINDS = [("", ""), ("daily history", "_D"), ("line items", "_LN"), ("master data", "_MSTR"), ("snapshot", "_SNAP")]
ATTRIBUTES = [("amount", "AMT", "REAL", "Monetary amount in local currency"), ("status", "STS_CD", "TEXT",
              "Lifecycle status code"), ("created_at", "CRT_TS", "TIMESTAMP", "Creation time"),
              ("updated_at", "UPD_TS", "TIMESTAMP", "Last update time"), ("name", "NM", "TEXT", "Display name"),
              ("description", "DESC_TXT", "TEXT", "Free-text description"), ("quantity", "QTY", "INTEGER",
              "Number of units"), ("currency", "CCY", "TEXT", "ISO 4217 currency code"),
              ("country", "CTRY", "TEXT", "ISO country code"), ("start_date", "STRT_DT", "DATE", "First valid day"),
              ("end_date", "END_DT", "DATE", "Last valid day"), ("price", "PX", "REAL", "Unit price"),
              ("discount", "DSC_PCT", "REAL", "Discount in percent"), ("tax", "TAX_AMT", "REAL", "Tax amount"),
              ("email", "EML", "TEXT", "E-mail address"), ("phone", "PHN", "TEXT", "Phone number"),
              ("category", "CAT_CD", "TEXT", "Category code"), ("score", "SCR", "REAL", "Model score 0-1"),
              ("weight", "WGT", "REAL", "Weight in kilograms"), ("priority", "PRIO", "INTEGER", "1 = highest"),
              ("channel", "CHNL", "TEXT", "Sales or contact channel"), ("owner", "OWNR_ID", "INTEGER",
              "Responsible user"), ("rating", "RTG", "INTEGER", "Rating 1-5"), ("balance", "BAL", "REAL",
              "Balance at end of day"), ("volume", "VOL", "INTEGER", "Traded volume"),
              ("city", "CTY", "TEXT", "City name"), ("duration", "DUR_MIN", "INTEGER", "Duration in minutes")]


def synthetic_schema(n_tables: int, n_columns: int, seed: int) -> tuple[list[TableInfo], list[dict[str, Any]]]:
    """``n_tables`` tables of ``n_columns`` columns each, plus metadata used to phrase questions."""
    rng = random.Random(seed)
    tables: list[TableInfo] = []
    info: list[dict[str, Any]] = []
    combos = [(d, e, k) for d in DOMAINS for e in ENTITIES for k in KINDS]
    rng.shuffle(combos)
    for dom, ent, kind in combos[:n_tables]:
        cryptic = rng.random() < 0.5
        name = f"{dom[1]}_{ent[1]}{kind[1]}" if cryptic else f"{dom[0]}_{ent[0]}{kind[1].lower()}"
        pk = f"{ent[1]}_ID" if cryptic else f"{ent[0]}_id"
        cols = [ColumnInfo(pk, "INTEGER", nullable=False, primary_key=True)]
        fks = []
        for ref in rng.sample(tables[-200:], k=min(len(tables[-200:]), rng.choice([0, 1, 1, 2, 3]))):
            fk_col = f"{ref.name}_{ref.primary_key[0]}".upper() if cryptic else f"{ref.name}_id".lower()
            cols.append(ColumnInfo(fk_col, "INTEGER"))
            fks.append(ForeignKey([fk_col], ref.name, list(ref.primary_key)))
        attrs = rng.sample(ATTRIBUTES, k=len(ATTRIBUTES))
        j = 0
        while len(cols) < n_columns:
            plain, short, typ, doc = attrs[j % len(attrs)]
            suffix = "" if j < len(attrs) else f"_{j // len(attrs) + 1}"
            col_name = (short + suffix) if cryptic else (plain + suffix)
            cols.append(ColumnInfo(col_name, typ, comment=doc if rng.random() < 0.35 else None))
            j += 1
        comment = (f"{kind[0].capitalize() or 'Records'} of {ent[0]}s in the {dom[0]} domain."
                   if rng.random() < 0.5 else None)
        tables.append(TableInfo(name, cols, primary_key=[pk], foreign_keys=fks, comment=comment,
                                sample_rows=[{c.name: (k + 1) * 7 for k, c in enumerate(cols[:5])}]))
        info.append({"domain": dom[0], "entity": ent[0], "kind": kind[0], "attrs": [a[0] for a in attrs[:3]]})
    return tables, info


def questions(tables: list[TableInfo], info: list[dict[str, Any]], n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` (question, answer table) pairs phrased from random tables' domain, entity, kind and attributes."""
    rng = random.Random(seed + 1)
    templates = ["What is the total {a} of {e}s in {d}?", "Show {e} {k} with the highest {a} for {d}",
                 "average {a} per {e} in the {d} team last month", "How many {d} {e}s have {a} above 100?",
                 "list {d} {e} {b} and {a}"]
    out = []
    for i in rng.sample(range(len(tables)), k=min(n, len(tables))):
        meta = info[i]
        text = rng.choice(templates).format(a=meta["attrs"][0], b=meta["attrs"][1], e=meta["entity"],
                                            d=meta["domain"], k=meta["kind"] or "records")
        out.append((text, tables[i].name))
    return out


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--columns", type=int, default=20, help="columns per table")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    tables, info = synthetic_schema(args.tables, args.columns, args.seed)
    n_cols = sum(len(t.columns) for t in tables)
    n_fks = sum(len(t.foreign_keys) for t in tables)
    print(f"schema: {len(tables)} tables, {n_cols} columns, {n_fks} foreign keys")
    settings = Settings()
    ef = get_embedding_function(settings)
    with tempfile.TemporaryDirectory(prefix="nl2sql-bench-") as tmp:
        store = ChromaStore(Path(tmp) / "chroma", ef)
        t0 = time.perf_counter()
        sync = sync_tables(store, "bench", "sqlite", tables, sample_rows=1)
        refresh_snapshot(store, "bench", tables=len(tables))
        build_s = time.perf_counter() - t0
        print(f"index build: {build_s:.1f} s ({sync.changed_docs} documents embedded)")
        t0 = time.perf_counter()
        again = sync_tables(store, "bench", "sqlite", tables, sample_rows=1)
        refresh_snapshot(store, "bench")
        print(f"no-change refresh: {time.perf_counter() - t0:.2f} s ({again.changed_docs} embedded)")

        qs = questions(tables, info, args.queries, args.seed)
        t0 = time.perf_counter()
        load_catalog(store, "bench")
        print(f"cold catalog build (BM25 + FK graph + schema docs): {1000 * (time.perf_counter() - t0):.0f} ms")
        retrieve_tables(store, "bench", "warm-up", 8, with_bridges=True)

        lat, embed, hits1, hits8, n_bridges = [], [], 0, 0, []
        for text, answer in qs:
            t0 = time.perf_counter()
            ef([text])
            embed.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            got = retrieve_tables(store, "bench", text, 8, with_bridges=True)
            lat.append(time.perf_counter() - t0)
            ranked = [h.name for h in got if not h.bridge]
            hits1 += ranked[:1] == [answer]
            hits8 += answer in ranked
            n_bridges.append(sum(h.bridge for h in got))
        tool = RetrieveSchemaTool()
        ctx = cast(Any, types.SimpleNamespace(settings=settings, store=store, db=types.SimpleNamespace(key="bench"),
                                              catalog=lambda: load_catalog(store, "bench")))
        tool_lat, tool_tokens = [], []
        for text, _ in qs:
            t0 = time.perf_counter()
            res = tool.run(RetrieveSchemaArgs(query=text), ctx)
            tool_lat.append(time.perf_counter() - t0)
            tool_tokens.append(res.value["tokens"])
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    def ms(values: list[float]) -> str:
        return (f"p50 {1000 * statistics.median(values):.1f} ms, p95 {1000 * pct(values, 0.95):.1f} ms, "
                f"max {1000 * max(values):.1f} ms")

    print(f"peak RSS: {rss_mb:.0f} MB")
    print(f"retrieve_tables(k=8, hybrid, with_bridges) over {len(qs)} queries: {ms(lat)}")
    print(f"  of which question embedding: {ms(embed)}")
    print(f"  recall: top-1 {100 * hits1 / len(qs):.1f}%, top-8 {100 * hits8 / len(qs):.1f}%; "
          f"mean bridges {statistics.mean(n_bridges):.2f}")
    print(f"retrieve_schema tool (k=30 ranking, budget 2400, bridges, join paths): {ms(tool_lat)}; "
          f"mean {statistics.mean(tool_tokens):.0f} tokens")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
