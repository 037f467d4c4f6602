"""The learning-from-feedback evaluation on a tiny set: a taught pair makes its paraphrase come out right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from cli.learning import teach_by_feedback
from core.settings import Settings
from eval.learning import load_learning, run_learning
from tests.support.scripted_model import ScriptedChatModel

SWEDEN = "SELECT COUNT(*) AS n FROM customers WHERE country = 'Sweden'"
BRAZIL = "SELECT COUNT(*) AS n FROM customers WHERE country = 'Brazil'"


def _generator(messages: list[BaseMessage]) -> dict[str, Any]:
    """Writes the Sweden query only when the taught example is among the prompt's examples (not for Brazil).

    Asked whether an approved query answers a new question, says yes for questions about Sweden.
    """
    prompt = "\n".join(str(m.content) for m in messages)
    if "Approved question:" in prompt:
        return {"same": "Sweden" in prompt.rsplit("New question:", 1)[-1]}
    asked = prompt.rsplit("Question:", 1)[-1]
    return {"sql": SWEDEN if "How many customers live in Sweden?" in prompt and "Brazil" not in asked else BRAZIL}


def test_paraphrase_is_right_after_the_pair_is_approved(shop_settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "learning.jsonl"
    db_file = shop_settings.database_url.removeprefix("sqlite:///")
    path.write_text(json.dumps({"id": "se", "taught_question": "How many customers live in Sweden?",
                                "taught_sql": SWEDEN, "paraphrases": ["Number of customers living in Sweden"],
                                "contrasts": [{"question": "Number of customers living in Brazil",
                                               "sql": BRAZIL}],
                                "database_url": db_file}) + "\n")
    items = load_learning(path)
    models = {"generator": ScriptedChatModel(script=_generator),
              "organizer": ScriptedChatModel(replies=[{"text": "x"}]), "planner": ScriptedChatModel(replies=[{}])}
    settings = shop_settings.model_copy(update={"generation": shop_settings.generation.with_rewrites(
        swap_copied_entities=False).model_copy(update={"reuse_approved": True})})  # the scripted 'Brazil' before teaching
    # is a copied entity the swap would correct (tests/unit/test_entity_swap.py); here only learning is measured
    summary = run_learning(items, settings, tmp_path / "run", teach_by_feedback, llm_overrides=models)
    assert (summary["questions"], summary["taught"]) == (1, 1)
    assert (summary["ex_before"], summary["ex_after"]) == (0.0, 1.0)
    assert (summary["taught_retrieved_before"], summary["taught_retrieved_after"]) == (0.0, 1.0)
    assert (summary["reused_after"], summary["contrasts"], summary["contrast_reused_after"]) == (1.0, 1, 0.0)
    assert (summary["contrast_ex_before"], summary["contrast_ex_after"]) == (1.0, 1.0)
    after = [json.loads(line) for line in (tmp_path / "run" / "after.jsonl").read_text().splitlines()]
    assert after[0]["pred_sql"] == SWEDEN and after[0]["reused"] and not after[1]["reused"]
    assert not list(Path(db_file).parent.glob("*.examples.jsonl"))  # the user's files are untouched
