"""The evaluation protocol: datasets, metrics, the leak-free example split, configurations side by side with
scripted models, resumability, the report and the LangSmith upload (faked)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cli.eval import eval_command as run_eval
from core.settings import Settings
from eval.configs import CONFIGS, parse_configs
from eval.datasets import EvalItem, load_spider, load_table
from eval.langsmith_upload import upload_run
from eval.metrics import error_category, paired_bootstrap, soft_f1, sql_category
from eval.runner import EvalRequest, prepare_store
from eval.splits import example_split
from retrieval.store import EXAMPLES_INDEX, SCHEMAS_INDEX, ChromaStore
from tests.support.scripted_model import ScriptedChatModel
from tests.unit.conftest import SHOP_SQL

QUESTIONS = [
    ("How many customers are there?", "SELECT COUNT(*) FROM customers"),
    ("How many customers are from Brazil?", "SELECT COUNT(*) FROM customers WHERE country = 'Brazil'"),
    ("List the customer names.", "SELECT name FROM customers"),
    ("Total order amount?", "SELECT SUM(amount) FROM orders"),
    ("How many orders are there?", "SELECT COUNT(*) FROM orders"),
    ("Names of customers with orders", "SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.id"),
]


@pytest.fixture()
def spider_dir(tmp_path: Path) -> Path:
    """A Spider-format folder with the shop database and six questions."""
    db_dir = tmp_path / "spider" / "database" / "shop"
    db_dir.mkdir(parents=True)
    with sqlite3.connect(db_dir / "shop.sqlite") as conn:
        conn.executescript(SHOP_SQL)
    (tmp_path / "spider" / "dev.json").write_text(json.dumps(
        [{"db_id": "shop", "question": q, "query": sql} for q, sql in QUESTIONS]))
    return tmp_path / "spider"


def test_load_table_csv_and_jsonl(tmp_path: Path, spider_dir: Path) -> None:
    (tmp_path / "q.csv").write_text("question,gold_sql,gold_sql_2,database_url\n"
                                    "Count?,SELECT COUNT(*) FROM customers,SELECT COUNT(id) FROM customers,"
                                    "spider/database/shop/shop.sqlite\n")
    items = load_table(tmp_path / "q.csv")
    assert items[0].gold_sqls == ["SELECT COUNT(*) FROM customers", "SELECT COUNT(id) FROM customers"]
    assert items[0].database_url == f"sqlite:///{(spider_dir / 'database/shop/shop.sqlite').resolve()}"
    assert items[0].db_id == "shop"
    (tmp_path / "q.jsonl").write_text(json.dumps({"question": "Q", "gold_sql": ["SELECT 1", "SELECT 1.0"],
                                                  "database_url": "postgresql://h/db", "id": "x"}) + "\n")
    item = load_table(tmp_path / "q.jsonl")[0]
    assert (item.qid, item.gold_sqls, item.database_url) == ("x", ["SELECT 1", "SELECT 1.0"], "postgresql://h/db")
    (tmp_path / "bad.jsonl").write_text(json.dumps({"question": "Q"}) + "\n")
    with pytest.raises(ValueError, match="record 1"):
        load_table(tmp_path / "bad.jsonl")


def test_soft_f1_tolerates_order_extra_columns_and_rounding() -> None:
    assert soft_f1([[1, "a"], [2, "b"]], [["b", 2, "x"], ["a", 1.0000001]])["f1"] == 1.0
    half = soft_f1([[1], [2]], [[1], [3]])
    assert half == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert soft_f1([], [])["f1"] == 1.0 and soft_f1([[1]], [])["f1"] == 0.0
    assert soft_f1([[100.0]], [[100.02]])["f1"] == 0.0  # beyond the 1e-4 relative tolerance


def test_error_categories_and_sql_categories() -> None:
    common: dict[str, Any] = {"pred_rows": 0, "gold_rows": 3, "plan_failed": False}
    assert error_category(ex=True, pred_sql="x", pred_ok=True, **common) == "correct"
    assert error_category(ex=False, pred_sql=None, pred_ok=False, **{**common, "plan_failed": True}) == \
        "planning_failed"
    assert error_category(ex=False, pred_sql=None, pred_ok=False, **common) == "no_executable_candidate"
    assert error_category(ex=False, pred_sql="x", pred_ok=False, **common) == "execution_error"
    assert error_category(ex=False, pred_sql="x", pred_ok=True, **common) == "empty_result"
    assert error_category(ex=False, pred_sql="x", pred_ok=True, **{**common, "pred_rows": 2}) == "wrong_result"
    assert sql_category("SELECT a FROM t") == "simple"
    assert sql_category("SELECT COUNT(*) FROM t GROUP BY b") == "aggregate"


def test_paired_bootstrap() -> None:
    same = paired_bootstrap([1, 0, 1, 0], [1, 0, 1, 0])
    assert same["diff"] == 0 and same["low"] == 0 == same["high"]
    better = paired_bootstrap([1] * 30, [0] * 10 + [1] * 20)
    assert better["diff"] == pytest.approx(1 / 3) and better["low"] > 0 and better["p_le_0"] == 0
    with pytest.raises(ValueError):
        paired_bootstrap([1], [1, 0])


def test_example_split_never_leaks(tmp_path: Path) -> None:
    items = [EvalItem(f"q{i}", q, sql, "sqlite:///x", "shop") for i, (q, sql) in enumerate(QUESTIONS)]
    evaluated = items[:2]
    dup = EvalItem("q9", "how many customers are there", "SELECT 1", "sqlite:///x", "shop")
    split = example_split([*items, dup], evaluated, per_db=10)["shop"]
    questions = {e["question"] for e in split}
    assert questions == {q for q, _ in QUESTIONS[2:]}  # neither evaluated ones nor a reworded duplicate
    path = tmp_path / "ex.jsonl"
    path.write_text(json.dumps({"question": "How many customers are from Brazil?", "sql": "SELECT 2"}) + "\n"
                    + json.dumps({"question": "Other", "sql": "SELECT COUNT(*) FROM customers"}) + "\n"
                    + json.dumps({"question": "Fine", "sql": "SELECT 3"}) + "\n")
    from_file = example_split(items, evaluated, files={"shop": path})["shop"]
    assert [e["question"] for e in from_file] == ["Fine"]  # same question or same gold SQL removed


def eval_models() -> dict[str, ScriptedChatModel]:
    plan = {"steps": [{"tool": "retrieve_schema", "input": "shop"}, {"tool": "retrieve_examples", "input": ""},
                      {"tool": "generate_sql", "input": "#E1 #E2"}, {"tool": "execute_sql", "input": "#E3"}]}
    answers = dict(QUESTIONS)
    answers["List the customer names."] = "SELECT name, country FROM customers"  # extra column: EX 0, judge 1

    def generate(messages: list[Any]) -> Any:
        question = str(messages[-1].content).split("Question:")[-1].split("\n")[0].strip()
        sql = answers.get(question, "SELECT nothing FROM nowhere")
        if "SQL query only" in str(messages[0].content):
            return f"```sql\n{sql};\n```"
        return {"reasoning": "r", "sql": sql}

    def judge(messages: list[Any]) -> Any:
        return {"verdict": "CORRECT", "reason": "extra column only"}

    return {"planner": ScriptedChatModel(replies=[plan]), "generator": ScriptedChatModel(script=generate),
            "organizer": ScriptedChatModel(replies=[{"text": "ok"}]), "judge": ScriptedChatModel(script=judge)}


def args_for(spider_dir: Path, out: Path, configs: str, **kw: Any) -> EvalRequest:
    base = {"dataset": "spider", "path": str(spider_dir), "configs": configs, "limit": None, "sample": 4, "seed": 1,
            "out": str(out), "workers": 1, "llm_judge": True, "judge_model": None, "judge_base_url": None,
            "examples_per_db": 40, "chroma": str(out.parent / "chroma"), "langsmith": False}
    return EvalRequest(**{**base, **kw})


def test_configs_side_by_side_resume_and_report(spider_dir: Path, shop_settings: Settings, tmp_path: Path) -> None:
    out = tmp_path / "run"
    models = eval_models()
    assert run_eval(args_for(spider_dir, out, "with_examples,single_shot", workers=2), shop_settings,
                    llm_overrides=models) == 0  # type: ignore[arg-type]
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["configs"]) == {"with_examples", "single_shot"}
    for name in ("with_examples", "single_shot"):
        rows = [json.loads(line) for line in (out / f"{name}.jsonl").read_text().splitlines()]
        assert len(rows) == 4 and all(r["config"] == name for r in rows)
        names = next((r for r in rows if r["question"] == "List the customer names."), None)
        if names:
            assert (names["ex"], names["judge_correct"], names["soft_f1"]) == (0, 1, 1.0)
    single = summary["configs"]["single_shot"]
    assert single["llm_calls"]["mean"] == 1.0 and single["cost_usd"]["mean"] == 0.0
    first = summary["paired"][0]
    assert (first["a"], first["b"], first["metric"], first["n"]) == ("with_examples", "single_shot", "ex", 4)
    html = (out / "report.html").read_text()
    assert "plotly" in html.lower() and "Failures" in html and html.count("<table") >= 3
    assert "EX %" in (out / "report.md").read_text()
    calls = len(models["generator"].prompts)
    run_eval(args_for(spider_dir, out, "with_examples,single_shot"), shop_settings, llm_overrides=models)  # type: ignore[arg-type]
    assert len(models["generator"].prompts) == calls  # resumed: nothing answered twice


def test_examples_come_from_the_split(spider_dir: Path, shop_settings: Settings, tmp_path: Path) -> None:
    out = tmp_path / "run"
    models = eval_models()
    run_eval(args_for(spider_dir, out, "with_examples", llm_judge=False, sample=2), shop_settings,
             llm_overrides=models)  # type: ignore[arg-type]
    meta = json.loads((out / "run.json").read_text())
    assert meta["examples_per_db"] == {"shop": 4}
    evaluated = {json.loads(line)["question"] for line in (out / "with_examples.jsonl").read_text().splitlines()}
    prompts = "\n".join(str(m.content) for p in models["generator"].prompts for m in p)
    for question in evaluated:  # an evaluated question appears only as the question, never as an example
        assert prompts.count(question) == sum(1 for p in models["generator"].prompts if question in str(p[-1].content))


def test_ids_answer_a_subset_with_the_whole_selections_examples(spider_dir: Path, shop_settings: Settings,
                                                                 tmp_path: Path) -> None:
    full, part = tmp_path / "full", tmp_path / "part"
    run_eval(args_for(spider_dir, full, "single_shot", llm_judge=False, sample=4), shop_settings,
             llm_overrides=eval_models())  # type: ignore[arg-type]
    records = [json.loads(line) for line in (full / "single_shot.jsonl").read_text().splitlines()]
    chosen = [records[1]["qid"], records[3]["qid"]]
    run_eval(args_for(spider_dir, part, "with_examples", llm_judge=False, sample=4, ids=chosen), shop_settings,
             llm_overrides=eval_models())  # type: ignore[arg-type]
    answered = [json.loads(line)["qid"] for line in (part / "with_examples.jsonl").read_text().splitlines()]
    meta = json.loads((part / "run.json").read_text())
    assert sorted(answered) == sorted(chosen) and meta["ids"] == chosen
    assert meta["examples_per_db"] == {"shop": 2}  # the six questions less the four selected, not less two
    with pytest.raises(ValueError, match="not in the selection"):
        run_eval(args_for(spider_dir, tmp_path / "bad", "with_examples", sample=4, ids=["nope"]), shop_settings,
                 llm_overrides=eval_models())  # type: ignore[arg-type]


def test_the_cli_reads_ids_inline_or_from_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import build_parser

    assert build_parser().parse_args(["eval", "--ids", "a, b"]).ids == ["a", "b"]
    (tmp_path / "ids.txt").write_text("spider-1\n\nspider-7\n")
    assert build_parser().parse_args(["eval", "--ids", f"@{tmp_path / 'ids.txt'}"]).ids == ["spider-1", "spider-7"]
    assert build_parser().parse_args(["eval"]).ids is None
    for bad in (f"@{tmp_path / 'missing.txt'}", " , "):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["eval", "--ids", bad])
    assert "no such file" in capsys.readouterr().err


def test_parse_configs() -> None:
    assert [c.name for c in parse_configs("all")] == list(CONFIGS)
    with pytest.raises(ValueError, match="choose from"):
        parse_configs("with_examples,bogus")
    cfg = CONFIGS["dc_only"].apply(Settings())
    assert [c.strategy for c in cfg.candidate_specs()] == ["divide_and_conquer"]
    assert CONFIGS["no_examples"].apply(Settings()).retrieval.use_examples is False


class FakeClient:
    def __init__(self) -> None:
        self.datasets: list[str] = []
        self.examples: list[dict[str, Any]] = []

    def has_dataset(self, dataset_name: str) -> bool:
        return dataset_name in self.datasets

    def create_dataset(self, dataset_name: str, description: str) -> None:
        self.datasets.append(dataset_name)

    def create_examples(self, dataset_name: str, examples: list[dict[str, Any]]) -> None:
        self.examples += examples


def test_langsmith_upload(spider_dir: Path, shop_settings: Settings, tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    run_eval(args_for(spider_dir, out, "with_examples,single_shot", llm_judge=False), shop_settings,
             llm_overrides=eval_models())  # type: ignore[arg-type]
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    assert "skipped" in upload_run(out)
    client, experiments = FakeClient(), []

    def evaluate(target: Any, **kw: Any) -> None:
        outputs = [target(e["inputs"]) for e in client.examples]
        experiments.append((kw["experiment_prefix"], [ev(o)["score"] for o in outputs for ev in kw["evaluators"][:1]]))

    status = upload_run(out, client=client, evaluate_fn=evaluate)
    assert "2 experiments" in status and len(client.examples) == 4
    assert [e[0] for e in experiments] == ["nl2sql-with_examples", "nl2sql-single_shot"]
    assert all(score in (0, 1) for _, scores in experiments for score in scores)
    upload_run(out, client=client, evaluate_fn=evaluate)
    assert len(client.datasets) == 1  # the dataset is reused


def test_an_unreachable_endpoint_stops_the_run_without_recording(spider_dir: Path, shop_settings: Settings,
                                                                 tmp_path: Path) -> None:
    from core.llm import LLMError

    out = tmp_path / "run"
    models = eval_models()
    models["generator"] = ScriptedChatModel(script=lambda _: LLMError(
        "LLM endpoint unreachable (OpenAIConnectionError): Connection error."))
    assert run_eval(args_for(spider_dir, out, "single_shot", llm_judge=False), shop_settings,
                    llm_overrides=models) == 2  # type: ignore[arg-type]
    assert not (out / "single_shot.jsonl").exists() or not (out / "single_shot.jsonl").read_text().strip()


def test_each_run_syncs_the_index_with_its_own_settings(spider_dir: Path, shop_settings: Settings, tmp_path: Path,
                                                        embedding_function: Any) -> None:
    store = ChromaStore(tmp_path / "shared-chroma", embedding_function)
    items = load_spider(spider_dir)
    prepare_store(store, shop_settings, items, items[:2], per_db=2, seed=1)
    first = [h.document for h in store.get(SCHEMAS_INDEX) if h.id.endswith(":customers")]
    assert first and "rows of customers" in first[0]
    bare = shop_settings.model_copy(update={"retrieval": shop_settings.retrieval.model_copy(update={"sample_rows": 0})})
    prepare_store(store, bare, items, items[:2], per_db=2, seed=1)  # the same store, a setting that changes documents
    second = [h.document for h in store.get(SCHEMAS_INDEX) if h.id.endswith(":customers")]
    assert second and "rows of customers" not in second[0]


def test_examples_are_indexed_before_the_tables_and_their_joins_only_for_runs_that_use_them(
        spider_dir: Path, shop_settings: Settings, tmp_path: Path, embedding_function: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import eval.runner as runner

    store = ChromaStore(tmp_path / "chroma", embedding_function)
    items = load_spider(spider_dir)
    seen: list[tuple[bool, int]] = []
    real = runner.index_database

    def spy(db: Any, store_: Any, settings: Settings, **kw: Any) -> Any:
        seen.append((settings.retrieval.example_joins, len(store_.get(EXAMPLES_INDEX, where={"db": db.key}))))
        return real(db, store_, settings, **kw)

    monkeypatch.setattr(runner, "index_database", spy)
    on = shop_settings.model_copy(update={"retrieval": shop_settings.retrieval.model_copy(
        update={"example_joins": True})})
    counts = prepare_store(store, on, items, items[:2], per_db=2, seed=1)
    prepare_store(store, on, items, items[:2], per_db=2, seed=1, example_joins=False)
    n = sum(counts.values())
    assert n > 0 and seen == [(True, n), (False, n)]  # the split was in the store when the tables were indexed
