"""The answer confidence: features alike from an outcome and its evaluation record, levels, reasons, the model."""

from __future__ import annotations

import importlib.util
import json
import math
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agent.confidence import (
    FEATURES,
    MODEL_PATH,
    ConfidenceModel,
    assess,
    confidence_features,
    load_model,
    reasons,
    repeated_output,
    sql_shape,
)
from agent.outcome import Outcome
from core.settings import Settings
from database.connection import Database
from eval.datasets import EvalItem
from eval.scoring import score_item
from eval.summary import confidence_levels

ROOT = Path(__file__).resolve().parents[2]
SQL = "SELECT COUNT(*) FROM customers WHERE country = 'Brazil'"
OTHER = "SELECT COUNT(*) FROM customers JOIN orders ON orders.customer_id = customers.id"


def _outcome(**changes: Any) -> Outcome:
    """An answer of three candidates that ran (two agree) and one that failed; the judge was called."""
    fired = [{"step": "simplify_sql", "phase": "candidate", "fired": True, "before": "x", "after": SQL},
             {"step": "prune_joins", "phase": "candidate", "fired": False, "before": SQL, "after": SQL}]
    base: dict[str, Any] = {
        "answer": "2", "status": "ok", "sql": SQL, "columns": ["n"], "rows": [[2]], "kind": "answer",
        "candidates": [
            {"index": 1, "strategy": "direct", "status": "error", "row_count": None, "sql": "SELEC", "error": "x",
             "rewrites": []},
            {"index": 2, "strategy": "plain", "status": "ok", "row_count": 1, "sql": OTHER, "error": None,
             "rewrites": []},
            {"index": 3, "strategy": "repair", "status": "ok", "row_count": 1, "sql": SQL, "error": None,
             "rewrites": fired},
            {"index": 4, "strategy": "query_plan", "status": "ok", "row_count": 1, "sql": SQL, "error": None,
             "rewrites": []}],
        "agreement": 0.667, "verifier": {"needed": True, "repaired": False},
        "judge": {"scores": [], "best_score": 0.8}, "plan_source": "planner",
        "usage": [{"role": "planner"}, {"role": "generator"}, {"role": "judge"}],
    }
    return Outcome(**{**base, **changes})


MODEL = ConfidenceModel(features=["agreement", "no_majority"], coefficients=[4.0, -2.0], intercept=-2.0,
                        verified=0.8, likely=0.5, hold_back=["term_checks"])


def test_features_of_an_outcome_and_of_its_evaluation_record_agree(shop_settings: Settings) -> None:
    out = _outcome()
    out.confidence = assess(out)
    item = EvalItem(qid="q1", question="How many customers are from Brazil?", gold_sql=SQL,
                    database_url=shop_settings.database_url, db_id="shop")
    record = score_item(item, out, Database.from_settings(shop_settings), shop_settings, config="no_examples")
    assert record["ex"] == 1 and record["confidence_level"] == out.confidence.level
    assert record["confidence"]["score"] == out.confidence.score
    features = confidence_features(out)
    assert confidence_features(record) == features
    assert confidence_features(json.loads(json.dumps(record, default=str))) == features
    assert confidence_features(out.to_json()) == features
    older = {k: v for k, v in record.items() if k not in ("confidence", "confidence_level")}
    only_outcome = {"judge_score", "degenerate", "term_checks"}
    assert {k: v for k, v in confidence_features(older).items() if k not in only_outcome} == {
        k: v for k, v in features.items() if k not in only_outcome}
    assert features["judge_score"] == 0.8 and confidence_features(older)["judge_score"] == 0.0
    assert set(features) == set(FEATURES)


def test_feature_values_of_a_crafted_outcome() -> None:
    f = confidence_features(_outcome())
    assert f["ran"] == 3 and f["failed"] == 1 and f["agreement"] == 0.667
    assert f["majority"] == 1 and f["all_agreed"] == 0 and f["no_majority"] == 0 and f["single_ran"] == 0
    assert f["repaired"] == 1 and f["rescued"] == 0 and f["rewrites"] == 1  # the first candidate with the SQL
    assert f["verifier_needed"] == 1 and f["verifier_repaired"] == 0 and f["judge_called"] == 1
    assert f["empty"] == 0 and f["degenerate"] == 0 and f["joins"] == 0
    assert f["rows_log"] == pytest.approx(math.log(2))  # the chosen candidate returned one row
    lone = confidence_features(_outcome(rows=[[None, 0]], candidates=[
        {"index": 1, "strategy": "literal", "status": "ok", "sql": SQL, "rewrites": []}], agreement=1.0,
        term_checks=[{"term": "a"}, {"term": "b"}]))
    assert lone["single_ran"] == 1 and lone["rescued"] == 1 and lone["degenerate"] == 1 and lone["term_checks"] == 2
    assert lone["rows_log"] == 0  # no row count recorded: no evidence either way
    assert sql_shape("SELECT a FROM t JOIN u ON 1 WHERE x = 'join' UNION SELECT b FROM (SELECT 1)") == {
        "joins": 1.0, "set_ops": 1.0, "subqueries": 2.0}


def test_levels_follow_the_thresholds_and_hold_back() -> None:
    all_agree = {"agreement": 1.0, "no_majority": 0.0}
    assert MODEL.score(all_agree) == pytest.approx(1 / (1 + 2.718281828 ** -2.0), rel=1e-6)  # 0.881
    assert MODEL.level(MODEL.score(all_agree), all_agree) == "verified"
    assert MODEL.level(MODEL.score(all_agree), {**all_agree, "term_checks": 1.0}) == "likely"
    half = {"agreement": 0.5, "no_majority": 1.0}
    assert MODEL.level(MODEL.score(half), half) == "unsure"  # sigmoid(-2) = 0.12
    assert MODEL.level(0.6, {}) == "likely" and MODEL.level(0.8, {}) == "verified"
    assert MODEL.level(0.49, {}) == "unsure"
    never = MODEL.model_copy(update={"verified": 1.0})
    assert never.level(1.0, {}) == "likely"


def test_assess_gives_no_level_to_errors_and_boundary_replies() -> None:
    assert assess(_outcome(status="error"), MODEL) is None
    assert assess(_outcome(kind="refuse"), MODEL) is None
    assert assess(_outcome(kind="follow_up"), MODEL) is None
    conf = assess(_outcome(status="empty", rows=[]), MODEL)
    assert conf is not None and conf.level in ("verified", "likely", "unsure") and 0 <= conf.score <= 1
    assert "the result is empty" in conf.reasons


def test_reasons_name_the_signals() -> None:
    assert reasons(confidence_features(_outcome(agreement=1.0, candidates=[
        {"strategy": "direct", "status": "ok", "sql": SQL}, {"strategy": "plain", "status": "ok", "sql": SQL},
        {"strategy": "query_plan", "status": "ok", "sql": SQL}], usage=[], verifier=None))) == [
        "3 of 3 independent SQL candidates returned the same rows"]
    four = [*_outcome().candidates, {"index": 5, "strategy": "divide_and_conquer", "status": "empty", "sql": OTHER}]
    text = reasons(confidence_features(_outcome(candidates=four, agreement=0.5,
                                                term_checks=[{"term": "a"}, {"term": "b"}])))
    assert text[0] == "the candidates disagreed (2 of 4 agree)"
    assert reasons(confidence_features(_outcome()))[0] == "most candidates agreed (2 of 3 returned the same rows)"
    assert "2 question words match no documented column" in text
    assert "1 candidate failed to run" in text and "a judge chose between different results (best score 0.80)" in text
    rescued = reasons(confidence_features(_outcome(candidates=[
        {"strategy": "relaxed", "status": "ok", "sql": OTHER}], sql=OTHER, agreement=1.0)))
    assert rescued[:2] == ["only one SQL candidate ran: nothing to compare it with",
                           "a fallback rewrite produced the answer"]
    assert "the SQL joins 2 tables" in rescued
    long = reasons(confidence_features(_outcome(candidates=[
        {"strategy": "direct", "status": "ok", "sql": SQL, "row_count": 25}], agreement=1.0)))
    assert "a long result (25 rows) is harder to get exactly right" in long
    short = reasons(confidence_features(_outcome(candidates=[
        {"strategy": "direct", "status": "ok", "sql": SQL, "row_count": 19}], agreement=1.0)))
    assert not any("long result" in r for r in short)


def test_the_shipped_model_loads_and_scores() -> None:
    model = load_model()
    assert model.features == list(FEATURES) and len(model.coefficients) == len(FEATURES)
    assert 0 < model.likely <= model.verified <= 1.0
    conf = assess(_outcome())
    assert conf is not None and 0 < conf.score < 1 and conf.reasons
    assert json.loads(MODEL_PATH.read_text(encoding="utf-8"))["fitted_on"]["answers"] > 0


def test_summary_gives_share_and_ex_per_level() -> None:
    rows = [{"confidence_level": "verified", "ex": 1}, {"confidence_level": "verified", "ex": 0},
            {"confidence_level": "unsure", "ex": 0}, {"confidence_level": None, "ex": 0}]
    levels = confidence_levels(rows)
    assert levels["verified"] == {"count": 2, "share": 0.667, "ex": 0.5}
    assert levels["likely"] == {"count": 0, "share": 0.0, "ex": None}
    assert confidence_levels([{"ex": 1}]) == {}


def _fit_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fit_confidence", ROOT / "scripts" / "fit_confidence.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _record(agree: bool, ex: int, config: str = "no_examples") -> dict[str, Any]:
    sql = "SELECT 1"
    cands = [{"index": i, "strategy": "direct", "status": "ok", "sql": sql if agree or i == 1 else f"SELECT {i}",
              "rewrites": []} for i in (1, 2, 3)]
    return {"config": config, "ex": ex, "status": "ok", "kind": "answer", "pred_sql": sql, "candidates": cands,
            "agreement": 1.0 if agree else 0.333, "judge_called": not agree, "verifier_needed": False,
            "verifier_repaired": False, "plan_source": "planner"}


def test_fit_script_learns_from_synthetic_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sklearn")
    rng = random.Random(7)
    lines = []
    for _ in range(120):
        agree = rng.random() < 0.6
        lines.append(_record(agree, int(rng.random() < (0.95 if agree else 0.3))))
    lines.append(_record(True, 0, config="single_shot"))  # skipped
    fit_file, out = tmp_path / "fit.jsonl", tmp_path / "model.json"
    fit_file.write_text("\n".join(json.dumps(r) for r in lines) + "\n{\"partial", encoding="utf-8")
    assert _fit_script().main([str(fit_file), "--out", str(out), "--test", str(fit_file)]) == 0
    printed = capsys.readouterr().out
    assert "fitted on 120 answers" in printed and "risk-coverage" in printed and "calibration" in printed
    model = ConfidenceModel.model_validate_json(out.read_text(encoding="utf-8"))
    auroc = float(printed.split("AUROC: ")[1].split()[0])
    assert auroc > 0.5
    agreed, split = confidence_features(_record(True, 1)), confidence_features(_record(False, 1))
    assert model.score(agreed) > model.score(split)
    assert model.level(model.score(agreed), agreed) == "verified"  # ~95% right on the fit set
    assert model.level(model.score(split), split) == "unsure"


def test_fit_script_cross_validates_by_database_when_records_span_several(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sklearn")
    rng = random.Random(11)
    lines = []
    for i in range(160):
        agree = rng.random() < 0.6
        lines.append({**_record(agree, int(rng.random() < (0.95 if agree else 0.3))), "db_id": f"db{i % 8}"})
    fit_file, out = tmp_path / "fit.jsonl", tmp_path / "model.json"
    fit_file.write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    assert _fit_script().main([str(fit_file), "--out", str(out)]) == 0
    assert "(folds by database)" in capsys.readouterr().out
    model = ConfidenceModel.model_validate_json(out.read_text(encoding="utf-8"))
    assert model.fitted_on["cv_by_database"] is True and model.fitted_on["cv_auroc"] > 0.5


def test_an_unsure_answer_offers_the_other_candidates_sql() -> None:
    from agent.confidence import Confidence
    from ui.render import other_readings

    out = _outcome(candidates=[*_outcome().candidates, {"strategy": "plain", "status": "ok", "sql": OTHER},
                               {"strategy": "plain", "status": "ok", "sql": "SELECT 3"},
                               {"strategy": "plain", "status": "ok", "sql": "SELECT 4"}])
    out.confidence = Confidence(score=0.3, level="unsure")
    assert other_readings(out) == [OTHER, "SELECT 3"]  # each SQL once, not the answer's, at most two
    out.confidence = Confidence(score=0.7, level="likely")
    assert other_readings(out) == []


def _agreed() -> Outcome:
    """An answer two candidates agreed on, with no judge, verifier or failure: verified unless held back."""
    return _outcome(agreement=1.0, candidates=[
        {"strategy": "direct", "status": "ok", "sql": SQL}, {"strategy": "plain", "status": "ok", "sql": SQL}],
        usage=[], verifier=None)


def test_a_column_guessed_from_its_values_keeps_an_answer_below_verified() -> None:
    shipped = load_model()
    assert "guessed_columns" in shipped.hold_back
    strong = _agreed()
    plain = confidence_features(strong)
    guessed = confidence_features(strong.model_copy(update={"guessed_columns": ["EDTR.c7"]}))
    assert plain["guessed_columns"] == 0.0 and guessed["guessed_columns"] == 1.0
    assert shipped.level(0.99, plain) == "verified" and shipped.level(0.99, guessed) == "likely"
    assert any("name says nothing" in r and "guessed from stored values" in r for r in reasons(guessed))
    assert not any("name says nothing" in r for r in reasons(plain))


def test_a_question_word_left_unread_keeps_an_answer_below_verified() -> None:
    shipped = load_model()
    assert "unread_terms" in shipped.hold_back
    strong = _agreed()
    plain = confidence_features(strong)
    unread = confidence_features(strong.model_copy(update={"unread_terms": ["name"], "unread_columns": ["PROD.c2"]}))
    assert plain["unread_terms"] == 0.0 and unread["unread_terms"] == 1.0
    assert shipped.level(0.99, plain) == "verified" and shipped.level(0.99, unread) == "likely"
    assert any("may have missed what was asked" in r for r in reasons(unread))
    assert not any("may have missed" in r for r in reasons(plain))
    # an evaluation record carries the same signal
    record = {"pred_sql": SQL, "status": "ok", "kind": "answer", "agreement": 1.0, "unread_terms": ["name"]}
    assert confidence_features(record)["unread_terms"] == 1.0


def test_fit_script_computes_the_opaque_column_signals_of_older_records(tmp_path: Path) -> None:
    import sqlite3

    folder = tmp_path / "database" / "shop"
    folder.mkdir(parents=True)
    with sqlite3.connect(folder / "shop.sqlite") as conn:
        conn.executescript("CREATE TABLE PROD (PROD_ID INTEGER, PROD_DSC TEXT, PROD_PRC REAL, c2 TEXT);"
                           "INSERT INTO PROD VALUES (1, 'a good read', 9.5, 'book');")
    script = _fit_script()
    older = {**_record(True, 0), "db_id": "shop", "question": "Find the name of the most expensive product.",
             "pred_sql": "SELECT PROD_DSC FROM PROD ORDER BY PROD_PRC DESC LIMIT 1"}
    done = script.opaque_signals(older, [tmp_path], {})
    assert done["unread_terms"] == ["name"] and done["guessed_columns"] == []
    guessed = script.opaque_signals({**older, "pred_sql": "SELECT c2 FROM PROD"}, [tmp_path], {})
    assert guessed["guessed_columns"] == ["PROD.c2"] and guessed["unread_terms"] == []
    assert script.opaque_signals(older, [], {}) is older  # no databases given: left as recorded
    assert script.opaque_signals({**older, "db_id": "elsewhere"}, [tmp_path], {}) == {**older, "db_id": "elsewhere"}
    newer = {**older, "unread_terms": [], "keys_stated": False}
    assert script.opaque_signals(newer, [tmp_path], {}) is newer  # recorded with the signals: kept
    joined = script.opaque_signals({**older, "unread_terms": [], "pred_sql": "SELECT 1 FROM PROD a JOIN PROD b "
                                    "ON a.PROD_ID = b.PROD_ID"}, [tmp_path], {})
    assert joined["unstated_joins"] == [] and joined["keys_stated"] is False  # a self-join links no two tables


def test_numbers_ordered_as_text_hold_back_a_verified_answer() -> None:
    agreeing = {"candidates": [{"strategy": "whole_schema", "status": "ok", "sql": SQL, "row_count": 1},
                               {"strategy": "direct", "status": "ok", "sql": SQL, "row_count": 1}],
                "agreement": 1.0, "usage": [], "verifier": None, "judge": None}
    plain = assess(_outcome(**agreeing))
    noted = assess(_outcome(**agreeing, text_order=["t.x stores numbers as text: ..."]))
    assert plain is not None and noted is not None and plain.level == "verified"
    assert noted.level == "likely" and noted.score == plain.score  # held back, not rescored
    assert "the SQL orders or compares a column that stores numbers or dates as text, alphabetically" in noted.reasons


def test_a_column_shown_twice_holds_back_a_verified_answer() -> None:
    twice = "SELECT c.bal, c.bal AS savings FROM acct AS a JOIN chk AS c ON a.id = c.id WHERE a.nm = 'Brown'"
    agreeing = {"candidates": [{"strategy": "whole_schema", "status": "ok", "sql": twice, "row_count": 1},
                               {"strategy": "direct", "status": "ok", "sql": twice, "row_count": 1}],
                "agreement": 1.0, "usage": [], "verifier": None, "judge": None}
    plain = assess(_outcome(**{**agreeing, "candidates": [{**c, "sql": SQL} for c in agreeing["candidates"]]}))
    noted = assess(_outcome(**agreeing, sql=twice))
    assert plain is not None and noted is not None and plain.level == "verified"
    assert noted.features["repeated_output"] == 1.0 and noted.level == "likely"
    assert "the answer shows the same column twice: the question may ask for two different things" in noted.reasons
    assert repeated_output(twice) == ["c.bal"]
    assert repeated_output("SELECT a, b FROM t") == [] and repeated_output("SELECT a FROM t UNION SELECT a FROM u") == []
    assert repeated_output("SELECT * FROM t") == [] and repeated_output("SELECT (") == []


def test_fit_script_stacks_a_new_signal_on_the_current_weights(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sklearn")
    rng = random.Random(5)
    lines = []
    for i in range(240):
        agree = rng.random() < 0.6
        surprise = rng.choice([0.02, 0.3])  # confident or not, independent of the vote
        ex = int(rng.random() < (0.95 if agree else 0.4) * (1.0 if surprise < 0.1 else 0.6))
        rec = {**_record(agree, ex), "db_id": f"db{i % 8}" + ("_abbr_1f" if i % 3 == 0 else "")}
        for c in rec["candidates"]:
            c["logprob"] = -surprise
        lines.append(rec)
    fit_file, out = tmp_path / "fit.jsonl", tmp_path / "model.json"
    fit_file.write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    fit = _fit_script()
    base = ConfidenceModel(features=["agreement"], coefficients=[2.0], intercept=-0.5, verified=0.9, likely=0.5,
                           fitted_on={"files": ["older.jsonl"]})
    out.write_text(base.model_dump_json(), encoding="utf-8")
    assert fit.main([str(fit_file), "--out", str(out), "--stack", "surprise"]) == 0
    printed = capsys.readouterr().out
    assert "before stacking" in printed and "(folds by database)" in printed
    model = ConfidenceModel.model_validate_json(out.read_text(encoding="utf-8"))
    weights = dict(zip(model.features, model.coefficients, strict=True))
    assert weights["surprise"] < 0  # the more surprised the model, the less likely right
    assert weights["agreement"] > 0 and not any(v for n, v in weights.items() if n not in ("agreement", "surprise"))
    assert model.fitted_on["stacked"] == ["surprise"] and model.fitted_on["stacked_on"] == {"files": ["older.jsonl"]}
    assert fit.database_group("flight_2_abbr_3e9a") == "flight_2" == fit.database_group("flight_2")
    with pytest.raises(SystemExit):
        fit.main([str(fit_file), "--out", str(out), "--stack", "no_such_signal"])
