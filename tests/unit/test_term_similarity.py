"""Nearest schema name of a question word (the answerability check's synonym filter)."""

from __future__ import annotations

from core.settings import Settings
from retrieval.embeddings import OfflineMiniLM
from retrieval.hybrid import TableCatalog
from retrieval.term_similarity import nearest_schema_names, schema_phrases, similar_words, split_identifier
from tools.answerability import CheckQuestionTool


def catalog(snapshot: str | None = "s1") -> TableCatalog:
    return TableCatalog(db_key="school", snapshot=snapshot, names=["student_enrolment", "Dogs"], descriptions={},
                        schemas={}, columns={"student_enrolment": ["student_id"], "Dogs": ["DateArrived", "Sex"]})


def test_identifiers_are_split_into_words() -> None:
    assert split_identifier("student_enrolment") == "student enrolment"
    assert split_identifier("DateArrived") == "date arrived"
    assert split_identifier("HTMLPage_ID") == "html page id"
    assert schema_phrases(catalog()) == ["student enrolment", "student id", "student enrolment student id", "dogs",
                                         "date arrived", "dogs date arrived", "sex", "dogs sex"]


def test_nearest_name_by_cosine_and_phrase_vectors_cached_per_snapshot() -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:  # a word's vector: does it mention a dog, a student?
        calls.append(list(texts))
        return [[float("dog" in t or "sex" in t), float("student" in t or "enrol" in t), 0.1] for t in texts]

    near = nearest_schema_names(["enrolled", "canine dog"], catalog(), embed)
    assert near["enrolled"][0] == "student enrolment" and near["enrolled"][1] > 0.9
    assert near["canine dog"][0] == "dogs"
    nearest_schema_names(["x"], catalog(), embed)
    assert len(calls) == 3  # phrases once, then one call per word batch
    assert nearest_schema_names([], catalog(), embed) == {}


def test_real_embeddings_tell_schema_synonyms_from_missing_concepts(embedding_function: OfflineMiniLM) -> None:
    near = nearest_schema_names(["enrolled", "arriving", "grammy", "salary"], catalog(snapshot=None),
                                embedding_function)
    threshold = Settings(local_llm={"auto_start": False}).answerability.synonym_similarity
    assert near["enrolled"][1] >= threshold and near["arriving"][1] >= threshold
    assert near["grammy"][1] < threshold and near["salary"][1] < threshold


def test_check_keeps_words_without_a_catalog() -> None:
    ctx = type("Ctx", (), {"store": None, "db": None, "settings": None})()
    evidence: dict[str, object] = {}
    assert CheckQuestionTool._not_synonyms(ctx, ["tempo"], 0.55, evidence) == ["tempo"]  # type: ignore[arg-type]


def test_similar_words_keeps_the_words_close_to_a_phrase_and_caches_the_phrases() -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        calls.append(list(texts))
        return [[float("alt" in t or "elev" in t), float("run" in t), 0.1] for t in texts]

    phrases = ["airports elevation", "airports name"]
    assert similar_words(["altitude", "runway"], phrases, embed, 0.9) == {"altitude"}
    assert similar_words(["altitude"], phrases, embed, 0.9) == {"altitude"}
    assert len(calls) == 3  # the phrases once, then each word batch
    assert similar_words(["altitude"], phrases, embed, 1.01) == set()  # above 1: off, nothing embedded
    assert similar_words([], phrases, embed, 0.5) == set() and len(calls) == 3


def test_real_embeddings_find_synonyms_of_readable_column_names(embedding_function: OfflineMiniLM) -> None:
    threshold = Settings(local_llm={"auto_start": False}).generation.link_synonym_similarity
    phrases = ["airports", "airports name", "airports elevation", "airports city"]
    assert similar_words(["altitude", "aerodromes", "runway", "age"], phrases, embedding_function,
                         threshold) == {"altitude", "aerodromes"}
