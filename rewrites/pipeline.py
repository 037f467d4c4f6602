"""The SQL rewrite pipeline: every deterministic rewrite of generated SQL, declared once, in order, and its runner.

:data:`STEPS` lists each step with its phase, the inputs it needs, where it comes from and one line on what it
does. :func:`run_phase` applies a phase's steps whose switch (``generation.rewrites.<step>``) is on and whose
needs are present, keeps a change only when the read-only guard accepts it, and reports a :class:`StepTrace`
per step it ran. Phases:

- ``written``: every query as the model wrote it, before the guard (it need not parse): text-level fixes, each kept
  only when the guard accepts the result;
- ``candidate``: every guarded candidate before its dry run (fresh and repaired ones; a reused approved answer
  runs as approved), and every rescued query, with its question;
- ``rescue``: after a candidate's result came back empty (or one row of NULL/0): the first fix whose query, after
  the candidate phase, returns real rows replaces it, before any new model call;
- ``fresh``: freshly written candidates only, after the candidate phase (entity swap: value matches of the
  question are meant for the model's own first try).

Ideas behind the steps: execution-guided correction of generated SQL without a model call (DIN-SQL's
self-correction, Pourreza & Rafiei 2023; the value probes of RAISE, Granado et al. 2025), BAR-SQL's binding of
business words to constraints, and the as-of reading of time series.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from database.guard import guard_sql
from rewrites import steps
from rewrites.inputs import Need, Phase, RewriteInputs, StepTrace
from rewrites.literals import degenerate

log = logging.getLogger(__name__)

Rewrite = Callable[[str, RewriteInputs], "str | None"]
"""``step(sql, inputs)``: the rewritten SQL, or None / ``sql`` when nothing changes."""


@dataclass(frozen=True)
class RewriteStep:
    """One declared rewrite step.

    ``name`` is also its switch (``generation.rewrites.<name>``); ``needs`` the inputs it cannot run without;
    ``source`` its module and the idea it follows; ``doc`` one line on what it does; ``fn`` the step itself. For
    a rescue, ``label`` is the strategy of the rescued candidate and ``reason`` its reasoning line.
    """

    name: str
    phase: Phase
    needs: frozenset[Need]
    source: str
    doc: str
    fn: Rewrite
    label: str = ""
    reason: str = ""


def _step(name: str, phase: Phase, needs: tuple[Need, ...], source: str, doc: str, fn: Rewrite, label: str = "",
          reason: str = "") -> RewriteStep:
    """A :class:`RewriteStep` (``needs`` as a tuple)."""
    return RewriteStep(name, phase, frozenset(needs), source, doc, fn, label, reason)


STEPS: tuple[RewriteStep, ...] = (
    _step("quote_names", "written", ("index",), "rewrites.quote_names",
          "a table or column name with spaces or signs (Total Revenue, #_Records, rate-%) written without quotes is "
          "quoted, so the query parses", steps.quoted_names),
    _step("respell_tables", "candidate", ("index",), "rewrites.respell (DIN-SQL self-correction)",
          "a table name the database lacks is replaced by the one table spelled alike (ARTISTS -> ARTSTS), "
          "unless another table's name starts with it", steps.respelled_tables),
    _step("respell_columns", "candidate", ("index",), "rewrites.respell (DIN-SQL self-correction)",
          "a column name no table has is replaced by the one column of its SELECT's tables that spells it in "
          "short or another case (FIRST_NAME -> FRST_NM)", steps.respelled),
    _step("fix_qualifiers", "candidate", ("index",), "rewrites.qualify",
          "a column qualified with the wrong table of its SELECT points at the one table there that has it, unless "
          "a table the named one references, outside the SELECT, has it too",
          steps.qualifiers),
    _step("add_missing_joins", "candidate", ("index",), "rewrites.missing_join",
          "a table qualified but never joined is joined along its one foreign key", steps.missing_joins),
    _step("join_column_owners", "candidate", ("index",), "rewrites.missing_join",
          "a column no table of its SELECT has (unqualified, or qualified with a table that only links others) is "
          "read from the one table joined to them by one foreign key that has it", steps.column_owners),
    _step("join_linked_owners", "candidate", ("index",), "rewrites.missing_join",
          "a column no table of its SELECT has, and no table joined to them by a foreign key has, is read from the "
          "one table reached through one table between (a linking table holding a key to each, or a chain of "
          "references)", steps.linked_owners),
    _step("swap_lacking_tables", "candidate", ("index",), "rewrites.table_swap (DIN-SQL self-correction)",
          "a table lacking columns the query reads from it is replaced by the one table outside the SELECT that "
          "has them all (t_10 with no ALBM_ID -> TRCK)", steps.lacking_tables),
    _step("complete_join_conditions", "candidate", ("index",), "rewrites.join_conditions (join-path repair)",
          "a join condition naming one side of a key only (ON a.col, ON a.col = a.col) gets its other side",
          steps.join_conditions),
    _step("fix_join_keys", "candidate", ("index",), "rewrites.join_keys (join-path repair, DIN-SQL / CHESS)",
          "a join whose two columns are no declared key goes through the one table the keys lead to",
          steps.join_keys),
    _step("fix_date_parts", "candidate", ("index", "database"), "rewrites.date_parts (value probes, RAISE)",
          "a date function over a column that holds no dates (a plain year, a weekday name) reads the column; a "
          "date literal compared with a column of years becomes its year",
          steps.date_parts),
    _step("fix_set_keys", "candidate", ("index",), "rewrites.set_keys (anti-join / semi-join)",
          "an EXCEPT / INTERSECT of names against ids becomes NOT IN / IN on the key the ids stand for",
          steps.set_keys),
    _step("fix_negated_joins", "candidate", ("question", "index"), "rewrites.negated_joins (anti-join)",
          "a negated question ('do not', 'never', 'without') answered by joining the many side and filtering it "
          "with <> (or with a comparison the question negates: 'without totals exceeding 20') becomes NOT IN over "
          "that table with = (or with the stated comparison)", steps.negated_joins),
    _step("align_period_dates", "candidate", ("question",), "rewrites.period_dates (knowledge.periods)",
          "two date bounds that miss the question's one closed period move onto it", steps.period_dates),
    _step("fix_rate_direction", "candidate", ("knowledge",), "rewrites.rate_direction",
          "an amount multiplied by its own currency's rate is divided by it", steps.rate_direction),
    _step("drop_unnamed_codes", "candidate", ("question", "knowledge"), "rewrites.code_filters (converse of BAR-SQL)",
          "a filter on a knowledge-bound code the question never names is dropped or re-pointed", steps.unnamed_codes),
    _step("prune_joins", "candidate", ("question", "index"), "rewrites.dangling",
          "an inner join to a table the query never reads and the question never names is dropped", steps.prune),
    _step("simplify_sql", "candidate", (), "rewrites.simplify",
          "needless aliases and primary-key self-joins go, keeping the result", steps.simplify),
    _step("latest_per_series", "candidate", ("question", "index"), "rewrites.as_of (greatest-n-per-group)",
          "'the latest X for every Y' written as one row becomes each series' latest row", steps.latest),
    _step("lift_window_filters", "candidate", (), "rewrites.window_scope",
          "date conditions apply after look-back windows, so the window sees the history", steps.windows),
    _step("drop_unasked_limit", "candidate", ("question",), "rewrites.answer_limits (output discipline)",
          "a LIMIT goes when the question asks for no ranking, pick or number of rows", steps.unasked_limit),
    _step("order_as_asked", "candidate", ("question",), "rewrites.answer_limits (output discipline)",
          "an ORDER BY is ascending unless the question asks for a descending order or a top pick",
          steps.order_asked),
    _step("fix_age_order", "candidate", ("question",), "rewrites.age_order (superlative direction)",
          "'youngest' / 'oldest' sort and pick an age column up / down and a birth date the other way",
          steps.age_order),
    _step("drop_rank_figure", "candidate", ("question",), "rewrites.answer_limits (output discipline)",
          "a top-n pick does not show the aggregate it ranks by unless the question asks for a figure",
          steps.rank_figure),
    _step("answer_conventions", "candidate", ("knowledge",), "rewrites.answer_shape (presentation records)",
          "the columns every answer of its kind shows are added", steps.conventions),
    _step("split_contradictions", "rescue", ("database",), "rewrites.contradictions (Spider's 'both ... and' as INTERSECT)",
          "a WHERE that asks one row to hold two values of a column becomes an INTERSECT of one query per value",
          steps.contradictions, "intersected", "its filter asked one row to hold two values: read as both"),
    _step("open_anti_joins", "rescue", ("database",), "rewrites.anti_joins (anti-join)",
          "an inner join whose key the WHERE asks to be NULL becomes the LEFT JOIN of 'has no matching row'",
          steps.anti_joins, "anti_joined", "its join asked the joined key to be NULL: read as no matching row"),
    _step("fix_literals", "rescue", ("database",), "rewrites.literals (value probes, RAISE)",
          "filter values are respelled as the column stores them", steps.literals,
          "literal", "its filter values were not spelled as stored: respelled"),
    _step("as_of_dates", "rescue", ("database",), "rewrites.as_of (as-of reading of time series)",
          "a date the table has no row on is read as of the last day on or before it", steps.as_of,
          "as_of", "no row on its date: read as of the last day on or before it"),
    _step("relax_joins", "rescue", ("question", "index", "database"), "rewrites.dangling",
          "inner joins to tables it never reads are dropped, unless every filter value is named", steps.relax,
          "relaxed", "the joins to tables it does not read removed every row: dropped"),
    _step("drop_unasked_filters", "rescue", ("question", "database"), "rewrites.literals",
          "filters on values the question does not name are dropped", steps.unasked,
          "unasked", "its filters on values the question does not name removed every row: dropped"),
    _step("swap_copied_entities", "fresh", ("question",), "rewrites.entity_swap",
          "a filter on an entity copied from an example points at the question's own entity", steps.entities),
)
"""Every rewrite step in the order it runs; ``generation.rewrites`` has one switch per step, in this order."""

STEP_NAMES: tuple[str, ...] = tuple(s.name for s in STEPS)


def run_phase(phase: Phase, sql: str, inputs: RewriteInputs) -> tuple[str, list[StepTrace]]:
    """Run ``phase``'s steps on ``sql``: the resulting SQL and one trace per step that ran.

    ``written``, ``candidate`` and ``fresh``: each change is kept only when :func:`database.guard.guard_sql` accepts it.
    ``rescue``: each fix (guarded) then runs the ``candidate`` phase with the same inputs (its question
    included) and is dry-run on ``inputs.db``; the first that returns non-degenerate rows is returned (its trace
    ``fired``), else ``sql`` unchanged. Never raises for a step's input: every step returns None on what it does
    not understand, and a step that raises anyway (a bug) is logged, traced as "the step failed" and skipped.
    """
    traces: list[StepTrace] = []
    for step in STEPS:
        if step.phase != phase or not getattr(inputs.switches, step.name) or not all(map(inputs.has, step.needs)):
            continue
        try:
            new = step.fn(sql, inputs)
        except Exception as exc:  # noqa: BLE001 - a step's bug must not cost the question its answer
            log.warning("rewrite step %s failed on %r: %r", step.name, sql, exc)
            traces.append(StepTrace(step.name, phase, False, note=f"the step failed: {type(exc).__name__}"))
            continue
        if not new or new == sql:
            traces.append(StepTrace(step.name, phase, False))
            continue
        if not guard_sql(new, inputs.dialect).ok:
            traces.append(StepTrace(step.name, phase, False, sql, new, "the guard refused it"))
            continue
        if phase != "rescue":
            traces.append(StepTrace(step.name, phase, True, sql, new))
            sql = new
            continue
        final, inner = run_phase("candidate", new, inputs)
        res = inputs.db.run_query(final) if inputs.db is not None else None
        if res is not None and res.ok and not degenerate(res.rows):
            return final, [*traces, StepTrace(step.name, phase, True, sql, new), *inner]
        traces.append(StepTrace(step.name, phase, False, sql, final, "still no rows" if res and res.ok else
                                "the fixed query failed"))
    return sql, traces


def rescued_by(traces: list[StepTrace]) -> RewriteStep | None:
    """The rescue step whose fix was kept, from :func:`run_phase`'s traces (None: no rescue)."""
    name = next((t.step for t in traces if t.phase == "rescue" and t.fired), None)
    return next((s for s in STEPS if s.name == name), None)
