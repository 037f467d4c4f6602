"""How often the answerability check would ask the model, per expected kind, at several synonym thresholds.

No LLM is called: each question runs the default plan's evidence steps (schema, examples, values, knowledge)
and ``check_question`` with ``answerability.llm_check`` off, which records the question's *uncovered* words and,
for each, the nearest table or column name with its embedding similarity (``retrieval.term_similarity``). A
question reaches the model check (and so may be refused) only when some uncovered word remains, so:

* on answerable questions (Spider dev, the demo gold set), the share that still has uncovered words bounds the
  EX the check can cost (each such question risks a false refusal);
* on the boundary set's ``refuse`` questions, that share bounds the refusals the check can still make.

For every threshold in ``--thresholds`` the script prints both shares, as the ``synonym_similarity`` setting
would give them, and the words with their nearest names (``--words``). Follow-ups and clarifications decided
from the knowledge records (no model) are counted separately.

    python scripts/measure_answerability.py --dataset spider --path data/spider-dev --sample 200 --seed 2026
    python scripts/measure_answerability.py --dataset file --path benchmarks/sets/boundary/boundary.jsonl --words

With ``--llm`` the check runs as configured but with ``answerability.llm_check`` on and the real model (one short
call per question that still has uncovered words, nothing else: no SQL is written), and the script prints the
decided kind per expected kind: the boundary set's kind accuracy, and on answerable questions the false
refusals, which are all the EX the check can cost (``--ex RUN.jsonl`` names those a run had right).

With ``--term-checks`` (no model) it scores the "which column means this word?" checks that answers carry under
``answerability.missing_data = ask`` (:mod:`tools.term_check`) against each question's gold query: how many
answers carry a check, and per check whether a column the gold query reads is offered (first or at all).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent.context import AgentDeps  # noqa: E402
from agent.plan import default_plan, resolve_refs  # noqa: E402
from core.llm import LLMProvider, UsageLog  # noqa: E402
from core.local_server import ensure_local_server  # noqa: E402
from core.settings import Settings  # noqa: E402
from database.connection import Database  # noqa: E402
from database.schema_reader import read_schema  # noqa: E402
from eval.configs import parse_configs  # noqa: E402
from eval.datasets import EvalItem, select  # noqa: E402
from eval.linking import gold_links  # noqa: E402
from eval.runner import load_dataset, prepare_store  # noqa: E402
from retrieval.embeddings import get_embedding_function  # noqa: E402
from retrieval.store import ChromaStore  # noqa: E402
from tools.base import ToolCall, ToolResult  # noqa: E402
from tools.registry import default_registry  # noqa: E402


def evidence(deps: AgentDeps, question: str) -> dict[str, Any]:
    """The ``check_question`` result value for ``question`` (its evidence steps run first; no LLM call)."""
    registry = deps.registry
    results: dict[str, ToolResult] = {}
    for step in default_plan(question, registry).steps:
        refs = {r: results[r] for r in step.references() if r in results}
        call = ToolCall(question, step.id, step.tool, resolve_refs(step.input, lambda r: results[r].text), refs)
        results[step.id] = registry.run(call, deps.context(UsageLog()))
        if step.tool == "check_question":
            return dict(results[step.id].value)
    return {}


def report_term_checks(rows: list[dict[str, Any]], items: list[EvalItem], agents: dict[str, AgentDeps]) -> None:
    """Print how many answers carry a term check and how often a check offers a column the gold query reads."""
    by_qid = {i.qid: i for i in items}
    answered = [r for r in rows if r["kind"] == "answer"]
    with_checks = [r for r in answered if r["term_checks"]]
    checks = first = offered = empty = 0
    lines = []
    for r in with_checks:
        item = by_qid[r["qid"]]
        db = agents[item.database_url].db
        schema = {t.name: [c.name for c in t.columns] for t in read_schema(db, sample_rows=0)}
        links = gold_links(item.gold_sql, schema, db.dialect)
        gold = {f"{t}.{c}".lower() for t, c in links.columns} if links else set()
        for check in r["term_checks"]:
            checks += 1
            options = [f"{o['table']}.{o['column']}".lower() for o in check["options"]]
            empty += not options
            first += bool(options) and options[0] in gold
            offered += any(o in gold for o in options)
            shown = ", ".join(f"{o['table']}.{o['column']} {o['score']:.2f}" for o in check["options"])
            mark = "first" if options and options[0] in gold else "offered" if any(o in gold for o in options) else "-"
            lines.append(f"  {mark:7} {r['qid']:14} '{check['term']}': {shown}  | {r['question'][:60]}")
    print(f"{len(answered)} answered questions, {len(with_checks)} with a term check "
          f"({100 * len(with_checks) / max(len(answered), 1):.1f}%); {checks} checks")
    if checks:
        print(f"  a gold column offered first {first} ({100 * first / checks:.1f}%), offered at all {offered} "
              f"({100 * offered / checks:.1f}%), no option {empty}")
    print("\n".join(lines))


def report_llm(rows: list[dict[str, Any]], ex_path: str | None) -> None:
    """Decided kinds per expected kind, kind accuracy, and the refused answerable questions (with their EX)."""
    right = {}
    if ex_path:
        right = {r["qid"]: r.get("ex") for r in map(json.loads, Path(ex_path).read_text().splitlines()) if r}
    correct = sum(r["kind"] == r["expect"] for r in rows)
    print(f"kind accuracy {correct}/{len(rows)} = {100 * correct / len(rows):.1f}%")
    for kind in sorted({r["expect"] for r in rows}):
        got = Counter(r["kind"] for r in rows if r["expect"] == kind)
        print(f"  expected {kind:9}: " + ", ".join(f"{k} {n}" for k, n in got.most_common()))
    for r in rows:
        if r["kind"] != r["expect"]:
            ex = f" (EX in the run: {right.get(r['qid'])})" if right else ""
            print(f"  {r['qid']:14} expected {r['expect']:9} got {r['kind']:9}{ex} missing={r['missing']!r} "
                  f"| {r['question'][:70]}")
    if right:
        lost = [r["qid"] for r in rows if r["expect"] == "answer" and r["kind"] != "answer" and right.get(r["qid"])]
        print(f"answerable questions the run had right and the check would not answer: {len(lost)} {lost}")


def main(argv: list[str] | None = None) -> int:
    """Collect the evidence of every question, then print the shares per threshold."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", choices=["demo", "spider", "file"], default="demo")
    parser.add_argument("--path")
    parser.add_argument("--sample", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--config", default="with_examples",
                        help="evaluation configuration whose retrieval settings apply (eval.configs: with_examples, "
                        "no_examples...); without examples the examples' words cover nothing")
    parser.add_argument("--ids", help="only these question ids: comma-separated, or @FILE with one per line")
    parser.add_argument("--thresholds", default="0.5,0.55,0.6,0.65,0.7,0.8,1.01")
    parser.add_argument("--chroma", help="Chroma folder (default: a fresh temporary one)")
    parser.add_argument("--words", action="store_true", help="list every uncovered word with its nearest name")
    parser.add_argument("--json", help="write the per-question evidence here")
    parser.add_argument("--llm", action="store_true", help="decide with the model check on (real model calls)")
    parser.add_argument("--ex", help="with --llm: an eval run's records (JSONL) to count refused questions it had right")
    parser.add_argument("--term-checks", action="store_true",
                        help="score the answers' term checks against the gold queries' columns (no model)")
    args = parser.parse_args(argv)
    base = Settings()
    check = ({"llm_check": True} if args.llm else {"llm_check": False, "missing_data": "ask"} if args.term_checks
             else {"llm_check": False, "synonym_similarity": 1.0})
    settings = parse_configs(args.config)[0].apply(base)
    settings = settings.model_copy(update={"answerability": settings.answerability.model_copy(update=check)})
    all_items = load_dataset(args.dataset, args.path)
    if args.ids:
        text = Path(args.ids[1:]).read_text() if args.ids.startswith("@") else args.ids.replace(",", "\n")
        wanted = {line.strip() for line in text.splitlines() if line.strip()}
        items = [i for i in all_items if i.qid in wanted]
    else:
        items = select(all_items, limit=args.limit, sample=args.sample, seed=args.seed)
    chroma = Path(args.chroma) if args.chroma else Path(tempfile.mkdtemp(prefix="nl2sql-answerability-"))
    store = ChromaStore(chroma, get_embedding_function(settings))
    prepare_store(store, settings, all_items, items, per_db=40, seed=args.seed)
    if args.llm and settings.uses_local_llm():
        ensure_local_server(settings)
    llms = LLMProvider(settings)  # without --llm never called: the evidence steps and the check use no model
    agents: dict[str, AgentDeps] = {}
    rows = []
    for item in items:
        if item.database_url not in agents:
            cfg = settings.with_database(item.database_url)
            agents[item.database_url] = AgentDeps(cfg, Database.from_settings(cfg), store, llms, default_registry())
        value = evidence(agents[item.database_url], item.question)
        ev = value.get("evidence", {})
        nearest = ev.get("nearest", {})
        rows.append({"qid": item.qid, "expect": item.expect, "question": item.question, "kind": value.get("kind"),
                     "rule": ev.get("rule"), "missing": value.get("missing"),
                     "uncovered": {w: nearest.get(w, ["", 0.0]) for w in ev.get("uncovered", [])},
                     "term_checks": ev.get("term_checks", [])})
    if args.term_checks:
        report_term_checks(rows, items, agents)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
        return 0
    if args.llm:
        report_llm(rows, args.ex)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
        return 0
    by_kind = Counter(r["expect"] for r in rows)
    decided = Counter(r["expect"] for r in rows if r["kind"] != "answer")
    print(f"{len(rows)} questions: " + ", ".join(f"{k} {n}" for k, n in sorted(by_kind.items())))
    print("decided without a model (follow_up/clarify from records): "
          + ", ".join(f"{k} {decided[k]}/{n}" for k, n in sorted(by_kind.items())))
    print(f"{'threshold':>9}  " + "  ".join(f"{k + ' to model':>18}" for k in sorted(by_kind)))
    for t in (float(x) for x in args.thresholds.split(",")):
        shares = []
        for kind in sorted(by_kind):
            left = [r for r in rows if r["expect"] == kind and r["kind"] == "answer"
                    and any(sim < t for _, sim in r["uncovered"].values())]
            shares.append(f"{len(left):>3}/{by_kind[kind]:<3} {100 * len(left) / by_kind[kind]:5.1f}%")
        print(f"{t:9.2f}  " + "  ".join(f"{s:>18}" for s in shares))
    if args.words:
        for r in rows:
            if r["uncovered"]:
                words = ", ".join(f"{w}~{n[0]!r} {n[1]:.2f}" for w, n in r["uncovered"].items())
                print(f"{r['expect']:9} {r['qid']:14} {words}  | {r['question'][:70]}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
