"""Generator prompt layout (prompts.generator): the parts every strategy shares come first, for the prompt cache."""

from __future__ import annotations

import os

from prompts import generator as prompt

PARTS = {"knowledge": "Knowledge: revenue = SUM(amount)\n\n", "history": "Earlier: Q1\n\n",
         "examples": f"{prompt.EXAMPLES_HEADER}-- Q: how many?\nSELECT COUNT(*) FROM t\n\n",
         "columns": "Columns with names that say nothing, matched to words of the question:\n- 'age': t.c3\n\n",
         "joins": f"{prompt.JOINS_HEADER}- a.id = b.a_id\n\n", "values": f"{prompt.VALUES_HEADER}- t.c = 'X'\n\n",
         "insights": f"{prompt.INSIGHTS_HEADER}count rows\n\n", "question": "How many orders?"}


def test_plain_shares_knowledge_history_and_examples_with_every_hinted_strategy() -> None:
    plain = prompt.PLAIN.format(**PARTS)
    shared = PARTS["knowledge"] + PARTS["history"] + PARTS["examples"]
    for name in ("direct", "divide_and_conquer", "query_plan"):
        hinted = prompt.TEMPLATES[name].format(**PARTS)
        # the hint-free second opinion reuses the cached prefix of the first candidate up to the hints
        assert os.path.commonprefix([plain, hinted]).startswith(shared)
        assert hinted.startswith(shared + PARTS["columns"] + PARTS["joins"] + PARTS["values"] + PARTS["insights"]
                                 + "Question:")
    assert PARTS["columns"] not in plain  # no opaque-column links either: the hint-free second opinion


def test_hinted_strategies_open_with_the_same_context_as_repairs_judge_and_verifier() -> None:
    context = "".join(PARTS[k] for k in ("knowledge", "history", "examples", "columns", "joins", "values", "insights"))
    for name in ("direct", "divide_and_conquer", "query_plan"):
        assert prompt.TEMPLATES[name].format(**PARTS).startswith(context + "Question: " + PARTS["question"])
