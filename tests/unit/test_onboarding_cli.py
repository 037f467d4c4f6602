"""``nl2sql onboard``: bad input ends with one line and exit code 2; a run prints its per-step summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cli import onboard as cli_onboard
from cli.main import main
from cli.onboard import ProgressPrinter
from core.llm import LLMProvider
from core.settings import Settings
from retrieval.onboarding import Progress
from tests.support.scripted_model import ScriptedChatModel
from tests.unit.onboarding_fixtures import LOG, bare, reply  # noqa: F401 (fixture)


@pytest.fixture()
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """State in a temp folder, a generator that is not the local server, and the scripted model."""
    monkeypatch.setenv("NL2SQL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("NL2SQL_GENERATOR__BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setattr(cli_onboard, "LLMProvider", lambda settings: LLMProvider(
        settings, overrides={"generator": ScriptedChatModel(script=reply)}))
    return tmp_path


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(("url", "expected"), [
    ("sqlite:///{tmp}/missing.sqlite", "Database file not found"),
    ("postgresql+psycopg://ann:s3cret@127.0.0.1:9/sales", "Cannot reach the database postgresql+psycopg://ann:***@"),
    ("nosuchdb://x/y", "Unknown database type"),
])
def test_an_unreachable_database_is_one_line_and_exit_2(env: Path, capsys: pytest.CaptureFixture[str], url: str,
                                                       expected: str) -> None:
    assert main(["onboard", "--database", url.format(tmp=env)]) == 2
    err = capsys.readouterr().err
    assert expected in _one_error_line(err) and "s3cret" not in err


def test_an_unreadable_or_empty_log_is_one_line_and_exit_2(env: Path, bare: Settings,  # noqa: F811
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    url = bare.database_url
    assert main(["onboard", "--database", url, "--log", str(env / "missing.sql")]) == 2
    assert "cannot read the query log" in _one_error_line(capsys.readouterr().err)
    (env / "binary.sql").write_bytes(b"\xff\xfe\x00garbage")
    assert main(["onboard", "--database", url, "--log", str(env / "binary.sql")]) == 2
    assert "not UTF-8 text" in _one_error_line(capsys.readouterr().err)
    (env / "empty.sql").write_text("-- nothing here\n")
    assert main(["onboard", "--database", url, "--log", str(env / "empty.sql")]) == 2
    assert "holds no SQL statement" in _one_error_line(capsys.readouterr().err)
    (env / "past.sql").write_text(";\n".join(LOG) + ";\n")
    assert main(["onboard", "--database", url, "--log", str(env / "past.sql"), "--draft-examples", "-1"]) == 2
    assert "--draft-examples must be 0 or more" in _one_error_line(capsys.readouterr().err)
    assert not (env / "state" / "onboarding").exists()  # nothing started


def test_a_run_prints_the_summary_and_a_rerun_resumes(env: Path, bare: Settings,  # noqa: F811
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    log = env / "past.sql"
    log.write_text(";\n".join(LOG) + ";\n")
    assert main(["onboard", "--database", bare.database_url, "--log", str(log)]) == 0
    out, err = capsys.readouterr()
    for name in ("profile", "describe", "draft_records", "draft_metrics", "mine_log", "draft_examples",
                 "review_queue"):
        assert f"\n{name} " in out and f"] {name}: done" in err
    assert "drafts await review" in out and "Developer panel > Onboarding" in out
    describe = next(line for line in out.splitlines() if line.startswith("describe "))
    assert describe.split()[1:4] == ["done", "12", "5"]  # 2 tables + 10 columns (2 documented), 5 calls
    assert main(["onboard", "--database", bare.database_url]) == 0
    out = capsys.readouterr().out
    assert all(line.split()[1] == "resumed" for line in out.splitlines()[2:9])
    assert main(["onboard", "--database", bare.database_url, "--restart"]) == 0
    assert "profile        done" in capsys.readouterr().out


def test_progress_printer_writes_item_lines_in_place_on_a_terminal() -> None:
    class Terminal:
        def __init__(self) -> None:
            self.text = ""

        def write(self, s: str) -> int:
            self.text += s
            return len(s)

        def flush(self) -> None:
            pass

        def isatty(self) -> bool:
            return True

    term = Terminal()
    printer = ProgressPrinter(term)  # type: ignore[arg-type]
    printer(Progress(2, 6, "describe"))
    printer(Progress(2, 6, "describe", 1, 3, "ORD_TXN"))
    printer(Progress(2, 6, "describe", 3, 3, "ORD_TXN", state="done"))
    assert term.text.startswith("[2/6] describe...\n\r[2/6] describe: 1/3 ORD_TXN")
    assert "\r[2/6] describe: done (3 items)" in term.text


def test_use_drafts_indexes_the_drafted_descriptions(env: Path, bare: Settings,  # noqa: F811
                                                     monkeypatch: pytest.MonkeyPatch, embedding_function: Any,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import agent.runner
    from retrieval.store import DESCRIPTION_INDEX, ChromaStore, db_filter

    store = ChromaStore(env / "chroma", embedding_function)
    monkeypatch.setattr(agent.runner, "open_store", lambda settings: store)
    assert main(["onboard", "--database", bare.database_url, "--use-drafts"]) == 0
    assert "Indexed with the drafts in use" in capsys.readouterr().out
    documents = " ".join(h.document for h in store.get(DESCRIPTION_INDEX, db_filter("shop")))
    assert "Summary of ORD_TXN." in documents and "written by a person" in documents
    store_plain = ChromaStore(env / "plain", embedding_function)
    monkeypatch.setattr(agent.runner, "open_store", lambda settings: store_plain)
    from cli.onboard import _refresh_index
    from database.connection import Database

    assert _refresh_index(bare, Database.from_settings(bare), [])  # the setting off: drafts stay out
    plain = " ".join(h.document for h in store_plain.get(DESCRIPTION_INDEX, db_filter("shop")))
    assert "Summary of ORD_TXN." not in plain and "written by a person" in plain


def test_an_imported_dictionary_is_indexed_without_use_drafts(env: Path, bare: Settings,  # noqa: F811
                                                             monkeypatch: pytest.MonkeyPatch, embedding_function: Any,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    import agent.runner
    from retrieval.store import DESCRIPTION_INDEX, SCHEMAS_INDEX, ChromaStore, db_filter

    store = ChromaStore(env / "chroma", embedding_function)
    monkeypatch.setattr(agent.runner, "open_store", lambda settings: store)
    (env / "dictionary.csv").write_text("table,column,description\nORD_TXN,,Orders the team books.\n"
                                        "ORD_TXN,STS_CD,Order status code of the team.\n")
    assert main(["onboard", "--database", bare.database_url, "--dictionary", str(env / "dictionary.csv")]) == 0
    out = capsys.readouterr().out
    assert "dictionary     done" in out and "Indexed with the imported data dictionary" in out
    documents = " ".join(h.document for h in store.get(DESCRIPTION_INDEX, db_filter("shop")))
    assert "Orders the team books." in documents  # reviewed text: indexed with drafts off
    assert "Summary of CUST_MSTR." not in documents  # the model's drafts stay out
    schemas = " ".join(h.document for h in store.get(SCHEMAS_INDEX, db_filter("shop")))
    assert "Order status code of the team." in schemas
