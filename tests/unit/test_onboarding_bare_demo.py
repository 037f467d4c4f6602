"""scripts/bare_demo.py: the demo database with every name, row and key kept and no documentation at all."""

from __future__ import annotations

import importlib.util
import sqlite3
from contextlib import closing
from pathlib import Path
from types import ModuleType

import pytest

from core.settings import DEMO_DB_PATH, PROJECT_ROOT
from database.connection import Database
from database.schema_reader import read_schema


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bare_demo", PROJECT_ROOT / "scripts" / "bare_demo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo database (generated into a temp folder when the checkout has none yet)."""
    if DEMO_DB_PATH.is_file():
        return DEMO_DB_PATH
    from data.markets.generate import generate

    path = tmp_path_factory.mktemp("demo") / "markets.sqlite"
    generate(path)
    return path


def _counts(path: Path) -> dict[str, int]:
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {n: conn.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0] for n in names}


def test_bare_copy_keeps_names_rows_and_keys_without_any_description(demo: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bare" / "markets.sqlite"
    out.parent.mkdir()
    stale = out.with_name("markets.knowledge.yaml")
    stale.write_text("version: 1\nrecords: []\n")
    assert _script().main([str(out), "--source", str(demo)]) == 0
    assert "no descriptions, no knowledge file" in capsys.readouterr().out
    assert _counts(out) == _counts(demo)
    assert sorted(p.name for p in out.parent.iterdir()) == ["markets.sqlite"]  # no companion file left
    bare = {t.name: t for t in read_schema(Database(f"sqlite:///{out}"), sample_rows=0)}
    original = {t.name: t for t in read_schema(Database(f"sqlite:///{demo}"), sample_rows=0)}
    assert sorted(bare) == sorted(original)
    assert all(t.comment is None and all(c.comment is None for c in t.columns) for t in bare.values())
    assert any(c.comment for t in original.values() for c in t.columns)  # the demo itself is documented
    for name, table in bare.items():
        assert [c.name for c in table.columns] == [c.name for c in original[name].columns]
        assert table.primary_key == original[name].primary_key
        assert len(table.foreign_keys) == len(original[name].foreign_keys)


def test_foreign_keys_can_be_left_out(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "nokeys.sqlite"
    assert _script().main([str(out), "--source", str(demo), "--drop-foreign-keys"]) == 0
    tables = read_schema(Database(f"sqlite:///{out}"), sample_rows=0)
    assert tables and all(not t.foreign_keys for t in tables) and _counts(out) == _counts(demo)
    assert _script().main([str(out), "--source", str(tmp_path / "none.sqlite")]) == 2
