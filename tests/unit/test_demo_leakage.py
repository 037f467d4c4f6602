"""Nothing the assistant reads on the demo database leaks the wording of the gold set's test half.

The knowledge file, the few-shot examples and the presentation conventions of ``markets`` may be written from
``dev`` questions only (eval/demo_split.py). A text leaks into a ``test`` question when, after lower-casing and
stripping punctuation, they share a sequence of four words or their ``rapidfuzz.fuzz.ratio`` is 0.8 or more.
Product code and data must not name a ``test`` id or a reworded-set id either (they were tuned on when they do).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from rapidfuzz import fuzz

from eval.datasets import load_demo
from eval.demo_split import GOLD_PATH, split_path
from knowledge.files import load_knowledge
from knowledge.records import KnowledgeRecord

ROOT = Path(__file__).resolve().parents[2]
MARKETS = ROOT / "data" / "markets"
EXAMPLES = MARKETS / "markets.examples.jsonl"
KNOWLEDGE = MARKETS / "markets.knowledge.yaml"
REWORDED = ROOT / "benchmarks" / "sets" / "reworded"
NGRAM = 4
MAX_RATIO = 0.8
PRODUCT_PACKAGES = ("agent", "tools", "rewrites", "database", "knowledge", "retrieval", "prompts", "core", "ui",
                    "cli", "records", "eval")
"""Packages whose tracked ``*.py`` files are product code (``eval``: the evaluation code, not its data)."""
ID_WORD = re.compile(r"\b(m\d{2}|rw-\d{2})\b")


def normalise(text: str) -> str:
    """Lower case, punctuation stripped, single spaces."""
    return " ".join(re.sub(r"[^\w\s]", "", text.lower()).split())


def ngrams(text: str, n: int = NGRAM) -> set[tuple[str, ...]]:
    words = normalise(text).split()
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def leaks(text: str, question: str) -> str | None:
    """Why ``text`` leaks into ``question`` (a shared 4-gram or the similarity), or None."""
    shared = ngrams(text) & ngrams(question)
    if shared:
        return "shares " + ", ".join(sorted(repr(" ".join(g)) for g in shared))
    ratio = fuzz.ratio(normalise(text), normalise(question)) / 100
    return f"ratio {ratio:.2f}" if ratio >= MAX_RATIO else None


def record_texts(record: KnowledgeRecord) -> list[str]:
    """Every phrase of a record a person wrote: name, synonyms, definition, readings, filters, note."""
    return [record.name, *record.synonyms, record.definition, *record.readings, *record.filters,
            *([record.note] if record.note else [])]


def written_texts() -> list[tuple[str, str]]:
    """``(where, text)`` of every example question and every knowledge/presentation record text (all statuses)."""
    out = [(f"example {i}", json.loads(line)["question"])
           for i, line in enumerate(EXAMPLES.read_text(encoding="utf-8").splitlines(), start=1) if line.strip()]
    for record in load_knowledge(KNOWLEDGE).records:
        out += [(f"{record.type} record {record.id}", text) for text in record_texts(record)]
    return out


def tracked_files() -> list[str]:
    """Tracked (and new, not ignored) files of the checkout, relative to the root; outside a git checkout, the
    files of the product packages, app.py and data/."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        listed = [path.relative_to(ROOT).as_posix() for top in (*PRODUCT_PACKAGES, "data")
                  for path in (ROOT / top).rglob("*") if "__pycache__" not in path.parts]
        listed.append("app.py")
    return sorted(set(listed))


def product_files() -> list[str]:
    """Product code and data: ``*.py`` of the product packages and app.py, ``data/**/*.yaml|jsonl`` but the gold
    set and its split."""
    excluded = {GOLD_PATH.relative_to(ROOT).as_posix(), split_path().relative_to(ROOT).as_posix()}
    out = []
    for name in tracked_files():
        top = name.split("/", 1)[0]
        code = name.endswith(".py") and (top in PRODUCT_PACKAGES or name == "app.py")
        data = top == "data" and name.endswith((".yaml", ".yml", ".jsonl"))
        if (code or data) and name not in excluded and (ROOT / name).is_file():
            out.append(name)
    return out


def guarded_ids() -> set[str]:
    """The ids no product file may name: the gold set's test ids and every reworded-set id."""
    ids = {item.qid for item in load_demo(split="test")}
    for path in sorted(REWORDED.glob("*.jsonl")):
        ids |= {json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
    return ids


def test_the_check_sees_what_it_guards() -> None:
    test_questions = [it.question for it in load_demo(split="test")]
    assert len(test_questions) >= 25
    assert len(written_texts()) > 100 and any(t.startswith("presentation") for t, _ in written_texts())
    assert leaks("the ISIN of Siemens please", "What is the ISIN of Microsoft?") is None
    assert leaks("Tesla close, last days", "tesla close last day?") == "ratio 0.98"  # too short for a 4-gram
    assert leaks("how many trading days", "How many trading days are there in 2024?") is not None
    ids = guarded_ids()
    assert {"rw-01"} <= ids and all(re.fullmatch(r"m\d{2}|rw-\d{2}", i) for i in ids)
    names = product_files()
    assert "eval/datasets.py" in names and "data/markets/markets.knowledge.yaml" in names
    assert not any(n.startswith("tests/") or n.endswith("gold.jsonl") for n in names)


def test_no_example_or_knowledge_record_leaks_into_a_test_question() -> None:
    test_questions = [(it.qid, it.question) for it in load_demo(split="test")]
    found = [f"{where}: {text!r} ~ {qid} {question!r}: {why}"
             for where, text in written_texts() for qid, question in test_questions
             if (why := leaks(text, question))]
    assert not found, "written from test questions (reword them from dev questions only):\n" + "\n".join(found)


def test_no_product_file_names_a_test_or_reworded_id() -> None:
    ids = guarded_ids()
    found = []
    for name in product_files():
        text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
        for lineno, line in enumerate(text.splitlines(), start=1):
            hits = sorted({m for m in ID_WORD.findall(line) if m in ids})
            if hits:
                found.append(f"{name}:{lineno}: {', '.join(hits)}")
    assert not found, "product files quoting held-out ids:\n" + "\n".join(found)
