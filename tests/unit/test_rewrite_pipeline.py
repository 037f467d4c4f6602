"""The SQL rewrite pipeline (rewrites.pipeline): one declared order, its switches, its runner and its phases."""

from __future__ import annotations

import dataclasses
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from core.settings import GenerationSettings, RewriteSettings, Settings
from database.connection import Database
from rewrites.as_of import as_of_dates
from rewrites.inputs import RewriteInputs
from rewrites.pipeline import STEPS, rescued_by, run_phase
from tests.unit.test_literals import _cascade

ROOT = Path(__file__).resolve().parents[2]
ORDER = ["quote_names", "respell_tables", "respell_columns", "fix_qualifiers", "add_missing_joins", "join_column_owners",
         "join_linked_owners", "swap_lacking_tables", "complete_join_conditions",
         "fix_join_keys", "fix_date_parts", "fix_set_keys", "fix_negated_joins", "align_period_dates",
         "fix_rate_direction", "drop_unnamed_codes", "prune_joins", "simplify_sql", "latest_per_series", "lift_window_filters",
         "drop_unasked_limit", "order_as_asked", "fix_age_order", "drop_rank_figure", "answer_conventions", "split_contradictions",
         "open_anti_joins", "fix_literals",
         "as_of_dates", "relax_joins", "drop_unasked_filters", "swap_copied_entities"]


def test_the_switches_follow_the_declared_order() -> None:
    assert [s.name for s in STEPS] == ORDER
    assert list(RewriteSettings.model_fields) == [s.name for s in STEPS]
    phases = [s.phase for s in STEPS]
    assert phases == sorted(phases, key=["written", "candidate", "rescue", "fresh"].index)  # one block per phase
    assert all(s.label and s.reason for s in STEPS if s.phase == "rescue")
    assert all(s.doc and s.source.startswith("rewrites.") for s in STEPS)


def test_only_the_runner_reads_the_switches() -> None:
    names = "|".join(ORDER)
    reads = re.compile(rf"\.(?:generation|rewrites)\.(?:{names})\b|switches\.(?:{names})\b")
    offenders = [f"{path.relative_to(ROOT)}" for package in ("agent", "tools", "rewrites", "retrieval", "database",
                                                             "knowledge", "eval", "ui", "cli", "records")
                 for path in (ROOT / package).rglob("*.py") if reads.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_flat_switches_are_still_read_with_a_deprecation_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.warns(DeprecationWarning, match="generation.rewrites"):
        gen = GenerationSettings(fix_literals=False)  # type: ignore[call-arg]
    assert not gen.rewrites.fix_literals and gen.rewrites.as_of_dates
    with pytest.warns(DeprecationWarning):
        gen = GenerationSettings(prune_joins=False, rewrites={"fix_qualifiers": False})  # type: ignore[call-arg]
    assert not gen.rewrites.prune_joins and not gen.rewrites.relax_joins and not gen.rewrites.fix_qualifiers
    with pytest.warns(DeprecationWarning):
        gen = GenerationSettings(simplify_sql=False, rewrites={"simplify_sql": True})  # type: ignore[call-arg]
    assert gen.rewrites.simplify_sql  # the new name wins
    monkeypatch.setenv("NL2SQL_GENERATION__AS_OF_DATES", "false")
    monkeypatch.setenv("NL2SQL_GENERATION__REWRITES__FIX_LITERALS", "false")
    with pytest.warns(DeprecationWarning):
        settings = Settings()
    assert not settings.generation.rewrites.as_of_dates and not settings.generation.rewrites.fix_literals
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert GenerationSettings().with_rewrites(swap_copied_entities=False).rewrites.swap_copied_entities is False
    with pytest.raises(ValueError, match="unknown rewrite"):
        GenerationSettings().with_rewrites(no_such_step=False)


def test_a_disabled_step_does_not_run() -> None:
    aliased = "SELECT c.name FROM customers AS c"
    on = RewriteInputs(dialect="sqlite")
    sql, traces = run_phase("candidate", aliased, on)
    assert sql == "SELECT name FROM customers"
    assert [t.step for t in traces if t.fired] == ["simplify_sql"]
    off = RewriteInputs(dialect="sqlite", switches=RewriteSettings(simplify_sql=False))
    sql, traces = run_phase("candidate", aliased, off)
    assert sql == aliased and "simplify_sql" not in [t.step for t in traces]
    assert {t.step for t in traces} == {"lift_window_filters"}  # the only other step that needs no input


def test_a_step_that_raises_is_skipped_and_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(sql: str, inputs: RewriteInputs) -> str | None:
        raise AttributeError("'Star' object has no attribute 'quoted'")

    broken = tuple(dataclasses.replace(s, fn=boom) if s.name == "simplify_sql" else s for s in STEPS)
    monkeypatch.setattr("rewrites.pipeline.STEPS", broken)
    sql, traces = run_phase("candidate", "SELECT c.name FROM customers AS c", RewriteInputs(dialect="sqlite"))
    assert sql == "SELECT c.name FROM customers AS c"
    failed = next(t for t in traces if t.step == "simplify_sql")
    assert not failed.fired and failed.note == "the step failed: AttributeError"


def test_a_rescued_query_runs_the_candidate_steps_with_its_question(shop_settings: Settings) -> None:
    db = Database.from_settings(shop_settings)
    copied = ("SELECT SUM(o.amount) FROM orders AS o JOIN customers AS c ON c.id = o.customer_id "
              "WHERE c.country = 'brazil' AND o.order_date BETWEEN '2024-01-01' AND '2024-01-31'")
    inputs = RewriteInputs(dialect=db.dialect, db=db, got_rows=True,
                           question="Total order amount of the customers from Brazil in February 2024")
    sql, traces = run_phase("rescue", copied, inputs)
    step = rescued_by(traces)
    assert step is not None and step.name == "fix_literals" and step.label == "literal"
    assert "'Brazil'" in sql and "BETWEEN '2024-02-01' AND '2024-02-29'" in sql  # the question's period
    assert [(t.step, t.phase) for t in traces if t.fired][:2] == [("fix_literals", "rescue"),
                                                                   ("align_period_dates", "candidate")]
    assert db.run_query(sql).rows == [(20.0,)]
    assert run_phase("rescue", copied, RewriteInputs(dialect=db.dialect, question=inputs.question)) == (copied, [])


def test_a_true_zero_on_a_date_with_rows_keeps_its_date(shop_settings: Settings, shop_store: Any) -> None:
    nothing = "SELECT SUM(amount) FROM orders WHERE order_date = '2024-02-03' AND customer_id = 2"
    made, _ = _cascade(shop_settings, shop_store, nothing, "Order total of customer 2 on 2024-02-03")
    assert [(c["strategy"], c["sql"]) for c in made] == [("direct", nothing)]  # the NULL total is the answer
    db = Database.from_settings(shop_settings)
    assert as_of_dates(nothing, "sqlite", {}, db) is None  # 2024-02-03 has rows: no other day's figure
    assert as_of_dates(nothing, "sqlite", {}) is not None  # what the rescue did without looking
    assert as_of_dates(nothing.replace("02-03", "02-05"), "sqlite", {}, db) is not None  # a day without rows


def test_the_catalog_is_read_once_per_question(shop_settings: Settings, shop_store: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import tools.base

    calls: list[str] = []
    real = tools.base.load_catalog
    monkeypatch.setattr(tools.base, "load_catalog", lambda store, key: calls.append(key) or real(store, key))
    sunday = "SELECT amount FROM orders WHERE order_date = '2024-02-05'"
    made, _ = _cascade(shop_settings, shop_store, sunday, "Order amounts on 2024-02-05")
    assert [c["strategy"] for c in made] == ["direct", "as_of"]
    assert len(calls) == 1
    assert [r["step"] for r in made[1]["rewrites"] if r["phase"] == "rescue"] == ["as_of_dates"]
