"""Which column means a word: column options for undocumented names, and the analyst's choice kept for review."""

from __future__ import annotations

from pathlib import Path

from knowledge.files import load_knowledge, propose_synonym, save_knowledge
from retrieval.term_expansion import abbreviates


def test_a_name_part_abbreviates_a_word() -> None:
    assert abbreviates("rev", "revenue") and abbreviates("qty", "quantity") and abbreviates("amt", "amount")
    assert not abbreviates("id", "identifier")  # two letters never count
    assert not abbreviates("cat", "revenue") and not abbreviates("revenue", "rev")


def test_the_chosen_column_becomes_a_pending_synonym_and_nothing_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "db.knowledge.yaml"
    record_id = propose_synonym(path, "revenue", "fin", "t_fed_rev", user="ana")
    kb = load_knowledge(path)
    record = kb.get(record_id)
    assert record is not None and record.type == "synonym" and record.status == "pending"
    assert record.synonyms == ["revenue"] and record.columns == ["fin.t_fed_rev"]
    save_knowledge(path, kb.set_status(record_id, "approved"))
    propose_synonym(path, "federal revenue", "fin", "t_fed_rev")
    again = load_knowledge(path).get(record_id)
    assert again is not None and again.status == "approved"  # a reviewer's approval is kept
    assert again.synonyms == ["revenue", "federal revenue"]
    save_knowledge(path, load_knowledge(path).set_status(record_id, "rejected"))
    propose_synonym(path, "income", "fin", "t_fed_rev")
    assert load_knowledge(path).get(record_id).status == "pending"  # type: ignore[union-attr]
