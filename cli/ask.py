"""``nl2sql ask`` and ``nl2sql sql`` output: the answer as text with its table, SQL, account and confidence.

Also the first-use step of ``ask``: a database asked about before it was ever indexed is indexed first (schema,
values; a few seconds to a minute), so a new user's first question gets an answer rather than "run
``nl2sql index`` first".
"""

from __future__ import annotations

import sys
from typing import Any

from agent.context import AgentDeps
from agent.outcome import Outcome
from retrieval.hybrid import load_catalog


def format_table(columns: list[str], rows: list[list[Any]], limit: int = 20) -> str:
    """``rows`` under ``columns`` as aligned text (pandas), at most ``limit`` rows and a "... N more rows" line."""
    import pandas as pd

    if not columns:
        return ""
    frame = pd.DataFrame(rows[:limit], columns=columns)
    more = f"\n... {len(rows) - limit} more rows" if len(rows) > limit else ""
    return frame.to_string(index=False) + more


def index_on_first_use(deps: AgentDeps, *, quiet: bool = False) -> bool:
    """Index ``deps.db`` into ``deps.store`` when it has no index yet; True when it did.

    Uses the settings' examples file and the database's approved feedback, as ``nl2sql index`` does. A note goes
    to stderr unless ``quiet``. Raises what :func:`retrieval.indexing.index_database` raises.
    """
    if deps.store is None or load_catalog(deps.store, deps.db.key) is not None:
        return False
    from cli.preflight import approved_feedback
    from retrieval.indexing import index_database, load_examples

    if not quiet:
        print(f"Indexing '{deps.db.key}' for its first question (once; `nl2sql index` refreshes it)...",
              file=sys.stderr)
    path = deps.settings.resolved_examples_path()
    index_database(deps.db, deps.store, deps.settings, examples=load_examples(path) if path else None,
                   progress=False, feedback=approved_feedback(deps.settings, deps.db.key))
    return True


def print_outcome(out: Outcome) -> None:
    """The answer for a terminal: text, table (unless one cell), chart note, SQL, account, checks, confidence."""
    from tools.term_check import TermCheck

    print(out.answer)
    if out.rows and not (len(out.rows) == 1 and len(out.columns) == 1):
        print(format_table(out.columns, out.rows))
    if out.chart:
        chart = out.chart
        print(f"Chart: {chart['kind']} of {chart.get('y') or chart['x']} by {chart['x']} (shown in the app)")
    if out.sql:
        print(f"\nSQL: {out.sql}")
    if out.account:
        print("What was computed:\n" + "\n".join(f"  {line}" for line in out.account))
    if out.definitions:
        print(f"Definitions used: {'; '.join(out.definitions)}")
    for check in out.term_checks:
        print(TermCheck(**check).prompt() + " (answer with `nl2sql knowledge` or in the app)")
    if out.confidence:
        print(f"Confidence: {out.confidence.level} ({'; '.join(out.confidence.reasons) or 'no signal'})")
    if out.guessed_columns:
        print(f"Guessed from stored values (no name or description): {', '.join(out.guessed_columns)}")
    if out.unread_terms:
        print(f"Not named by any readable column read: {', '.join(out.unread_terms)}; unread columns whose names "
              f"say nothing: {', '.join(out.unread_columns)}")
    for line in out.range_conflicts:
        print(f"Outside the stored values: {line}")
    for line in out.text_order:
        print(f"Ordered as text: {line}")
    if out.unstated_joins:
        print(f"Joined on links no foreign key states: {'; '.join(out.unstated_joins)}")
    print(f"\n[{out.status}; {out.latency_s} s; {out.llm_calls} LLM calls; "
          f"{out.prompt_tokens}+{out.completion_tokens} tokens ({out.cached_tokens} cached); plan: {out.plan_source}]")
