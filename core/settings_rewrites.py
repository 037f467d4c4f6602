"""Switches of the deterministic SQL rewrites: one field per step of :data:`rewrites.pipeline.STEPS`, in its order.

``generation.rewrites.<step>`` (environment: ``NL2SQL_GENERATION__REWRITES__<STEP>``). The flat names of earlier
versions (``generation.<step>``, ``NL2SQL_GENERATION__<STEP>``) are still read, with a DeprecationWarning, by
:func:`lift_flat_flags`. Only the pipeline runner (:func:`rewrites.pipeline.run_phase`) reads these switches.
"""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import BaseModel, Field


class RewriteSettings(BaseModel):
    """One switch per rewrite step, named after it, in pipeline order (written, candidate, rescue, fresh)."""

    quote_names: bool = Field(
        True, description="Quote a table or column name with spaces or signs (Total Revenue, #_Records, rate-%) that "
        "a candidate wrote without quotes (SUM(Total Revenue) does not parse; SELECT Total Revenue reads a column "
        "Total), before the guard (rewrites.quote_names), instead of spending a model repair.",
    )
    respell_tables: bool = Field(
        True, description="Replace a table name the database lacks (the model's ARTISTS for ARTSTS) with the one "
        "table spelled alike (rewrites.respell), unless another table's name starts with the written one, before "
        "the query runs.",
    )
    respell_columns: bool = Field(
        True, description="Replace a column name no table has (the model's FIRST_NAME for FRST_NM) with the one "
        "column of its SELECT's tables spelled alike: the same once case and separators go, or part by part "
        "equal or abbreviated (rewrites.respell), before the query runs, instead of spending a model repair.",
    )
    fix_qualifiers: bool = Field(
        True, description="Re-point a column qualified with the wrong table of its SELECT to the only table there "
        "that has it (rewrites.qualify), before the query runs.",
    )
    add_missing_joins: bool = Field(
        True, description="Join a table the candidate qualifies columns with but never joined, when exactly one of "
        "its tables has exactly one foreign key to it (rewrites.missing_join).",
    )
    join_column_owners: bool = Field(
        True, description="Read a column that no table of its SELECT has (SQLite: 'no such column'; unqualified, or "
        "qualified with a table there that only links others) from the one table outside it that has the column "
        "and a single foreign key to one of its tables, adding the join (rewrites.missing_join), instead of "
        "spending a model repair. Replayed on recorded development runs: 12 right answers gained, 4 lost; "
        "through the voting cascade 19 gained, 5 lost (the linking-table case: 4 of the gains, no loss).",
    )
    join_linked_owners: bool = Field(
        True, description="Read a column that no table of its SELECT has, and no table one foreign key away has, "
        "from the one table reached through one table between: a linking table holding a foreign key to each (SELECT "
        "NM, LOC FROM MBR with LOC in PRFRMN and MBR_ATNDNC referencing both: both joins added), or a chain of "
        "references (FNOL -> CSTMR_PLCY -> CSTMR; rewrites.missing_join).",
    )
    swap_lacking_tables: bool = Field(
        True, description="Replace a table that lacks columns the query reads from it with the one table outside "
        "its SELECT that has every one of them (the model's playlist-track table t_10 joined on ALBM_ID, which "
        "only TRCK has along with TRCK_ID; rewrites.table_swap), before the query runs.",
    )
    complete_join_conditions: bool = Field(
        True, description="Complete a join condition that names one side of a key only (JOIN dept_locations ON "
        "department.dnumber, or ON t.x = t.x: every row paired with every row) with its one partner on the other "
        "side, by a declared foreign key or else a column of the same name (rewrites.join_conditions), before the "
        "query runs. Replayed through the voting cascade on seventeen recorded development runs: it fires on one "
        "question in two of them, 2 right answers gained, none lost.",
    )
    fix_join_keys: bool = Field(
        True, description="Route a join whose ON pairs two columns that are no declared key (stadium.id = "
        "injury_accident.game_id) through the one table the declared foreign keys lead to (game), before the "
        "query runs (rewrites.join_keys; no declared foreign keys, no effect). Replayed through the voting "
        "cascade on recorded development runs: 9 right answers gained, none lost.",
    )
    fix_date_parts: bool = Field(
        True, description="Replace a SQLite date function over a column whose stored values are not dates "
        "(strftime('%Y', Year) on a column of year numbers, strftime('%A', day) on weekday names; SQLite answers "
        "those with a wrong year or NULL instead of an error) by the column itself, and compare such a column of "
        "years with a date literal's year (rewrites.date_parts). Replayed "
        "on recorded development runs (wide set both wordings, abbreviated copies, Spider dev 200, demo dev): 16 "
        "right answers gained, none lost.",
    )
    fix_set_keys: bool = Field(
        True, description="Turn a set operation whose sides return different columns (SELECT name FROM instructor "
        "EXCEPT SELECT id FROM teaches) into a NOT IN / IN filter on the left table's key that the right side's "
        "column stands for, along a foreign key or a same-named column (rewrites.set_keys). Replayed on recorded "
        "development runs (wide set both wordings, abbreviated copies, Spider dev 200, demo dev): 6 right answers "
        "gained, none lost.",
    )
    fix_negated_joins: bool = Field(
        True, description="When the question negates a relation ('countries that do not speak English', 'never', "
        "'without') and a candidate joins the related table's many side and keeps its rows with <> (every country "
        "speaking some other language), filter the entity by NOT IN over the related rows with = instead "
        "(rewrites.negated_joins; one inner join, one such <> condition, everything else read from the entity). "
        "Replayed through the voting cascade on recorded development runs (wide set both wordings, abbreviated "
        "copies, Spider dev 200, demo dev): 8 right answers gained, none lost.",
    )
    align_period_dates: bool = Field(
        True, description="When the question names one closed period (a month, quarter, half or year; not 'since "
        "2020') and a candidate's two range bounds miss it (an example's quarter kept), move them onto the "
        "period's first and last day (rewrites.period_dates).",
    )
    fix_rate_direction: bool = Field(
        True, description="Turn an amount multiplied by the conversion rate of its own row's currency (a rate the "
        "knowledge file declares as quote per base, joined on the row's currency column) into a division "
        "(rewrites.rate_direction; no rate record, no effect).",
    )
    drop_unnamed_codes: bool = Field(
        True, description="Drop a candidate's filter on a code the knowledge file binds to a column (an exchange's "
        "MIC, an enum value) when the question names neither the code nor its record's words, or point it at "
        "the one other code of that column the question names (rewrites.code_filters; no knowledge file, no "
        "effect).",
    )
    prune_joins: bool = Field(
        True, description="Before the query runs, drop inner joins to tables the candidate never reads and the "
        "question never names (rewrites.dangling): an existence filter the question does not ask for is the "
        "model's addition. Replayed on the wide development set (synonym wording, 176 questions): +3 right, "
        "none lost, against keeping joins not proven row-preserving.",
    )
    simplify_sql: bool = Field(
        True, description="Rewrite each candidate with the result-preserving simplifier (rewrites.simplify): "
        "drop needless primary-key self-joins and table aliases.",
    )
    latest_per_series: bool = Field(
        True, description="When the question asks for something per series ('for every stock', 'each currency', "
        "'of all stocks'; 'all' alone does not count), a candidate keeping one row by ORDER BY date DESC LIMIT 1 "
        "on a (series, date)-keyed table gets each series' latest row (rewrites.as_of).",
    )
    lift_window_filters: bool = Field(
        True, description="Apply a candidate's date conditions after its look-back windows (LAG, n-day moving "
        "averages) instead of before, so the window sees the history (rewrites.window_scope).",
    )
    drop_unasked_limit: bool = Field(
        True, description="Remove a candidate's outer LIMIT when the question asks for no ranking, pick or number "
        "of rows ('top', 'first', a superlative, '3 cities'; rewrites.answer_limits).",
    )
    order_as_asked: bool = Field(
        True, description="Make a candidate's outer ORDER BY ascending when the question asks for an order "
        "('ordered by', 'sorted by') without a descending cue and the query keeps no LIMIT "
        "(rewrites.answer_limits).",
    )
    fix_age_order: bool = Field(
        True, description="Sort and pick an age column up for 'youngest' and down for 'oldest' (a birth date the "
        "other way), in ORDER BY keys and MAX/MIN, when the question has one of the two words "
        "(rewrites.age_order).",
    )
    drop_rank_figure: bool = Field(
        True, description="Remove the aggregate column a candidate's top-n pick ranks by ('Which code appears most "
        "often?' as SELECT code, COUNT(*) ... ORDER BY COUNT(*) DESC LIMIT 1) when the question asks for no figure "
        "('how many', 'number', 'total', 'average', ...; rewrites.answer_limits). A presentation record of kind "
        "ranked_by adds it back where a team wants it shown.",
    )
    answer_conventions: bool = Field(
        True, description="Add the columns the knowledge file's approved presentation records ask for to each "
        "candidate's SELECT list (rewrites.answer_shape): each listed stock's identifying columns, the date a "
        "'latest' value was picked from. Replayed on the demo gold runs: strict EX +3 to +5 of 59, none lost.",
    )
    split_contradictions: bool = Field(
        True, description="When a candidate's result is empty because its WHERE asks one row to hold two values of "
        "one column (language = 'English' AND language = 'French', join_year > 2005 AND join_year < 2000), read "
        "it as 'both': an INTERSECT of one query per value or range (rewrites.contradictions).",
    )
    open_anti_joins: bool = Field(
        True, description="When a candidate's result is empty (or one row of NULL/0) because its WHERE asks the key "
        "of an inner join to be NULL (JOIN enrolments e ON s.id = e.semester_id WHERE e.semester_id IS NULL: never "
        "true), make that join a LEFT JOIN, the anti-join 'has no matching row' means (rewrites.anti_joins).",
    )
    fix_literals: bool = Field(
        True, description="When a candidate's result is empty, respell its filter literals as the column stores "
        "them when exactly one stored value matches up to accents, case, spaces and punctuation "
        "(rewrites.literals).",
    )
    as_of_dates: bool = Field(
        True, description="When a candidate's result is empty, read its filters on a date on which the table has no "
        "row at all (a weekend, a holiday) as of the last day on or before it, within 10 days, per series "
        "(rewrites.as_of). A true 0 or NULL over rows of that date keeps its date.",
    )
    relax_joins: bool = Field(
        True, description="When a candidate's result is empty and some value it filters on is not named by the "
        "question, try it without its inner joins to tables it never reads (rewrites.dangling).",
    )
    drop_unasked_filters: bool = Field(
        True, description="When a candidate's result is empty, drop its outer filters on values the question does "
        "not name (a filter copied from a few-shot example, such as an exchange code) before a new model call "
        "(rewrites.literals).",
    )
    swap_copied_entities: bool = Field(
        True, description="Point a filter on an entity the question never names (copied from a few-shot example) "
        "at the one confidently matched entity of the same table the SQL does not use (rewrites.entity_swap).",
    )


FLAT_FLAGS: dict[str, tuple[str, ...]] = {
    **{name: (name,) for name in RewriteSettings.model_fields if name != "relax_joins"},
    "prune_joins": ("prune_joins", "relax_joins"),
}
"""Flat ``generation.<name>`` switch -> the ``rewrites`` steps it sets (``prune_joins`` also ruled the rescue)."""


def lift_flat_flags(data: Any) -> Any:
    """``GenerationSettings`` input with flat rewrite switches moved under ``rewrites`` (a DeprecationWarning).

    ``{"fix_literals": False}`` becomes ``{"rewrites": {"fix_literals": False}}``; an explicit
    ``rewrites.<step>`` wins over its flat name. Input that is not a dict is returned as it is.
    """
    if not isinstance(data, dict):
        return data
    flat = [key for key in data if isinstance(key, str) and key.lower() in FLAT_FLAGS]
    if not flat:
        return data
    warnings.warn(f"generation.{', generation.'.join(flat)}: moved to generation.rewrites.<step> "
                  "(NL2SQL_GENERATION__REWRITES__<STEP>); the flat names will be removed",
                  DeprecationWarning, stacklevel=2)
    data = dict(data)
    nested = data.get("rewrites")
    if isinstance(nested, RewriteSettings):
        nested = nested.model_dump(exclude_unset=True)
    steps: dict[str, Any] = dict(nested) if isinstance(nested, dict) else {}
    for key in flat:
        value = data.pop(key)
        for step in FLAT_FLAGS[key.lower()]:
            steps.setdefault(step, value)
    data["rewrites"] = steps
    return data
