"""The documentation says what is true today.

- docs/configuration.md is what scripts/gen_config_docs.py generates from the settings models;
- no tracked text file outside tests/ labels work by rounds or issue numbers (the project speaks of itself:
  what the product does, and when, by date and commit);
- every relative link and image of the README, the changelog and docs/*.md resolves (a ``#anchor`` to a heading);
- every ``nl2sql`` command and flag, and every ``make`` target, in their shell blocks exists.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import re
import shlex
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINKED_PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "benchmarks" / "README.md",
                ROOT / "benchmarks" / "results" / "README.md", *DOCS]
COMMAND_PAGES = [ROOT / "README.md", *DOCS]

ROUND_LABELS = [
    re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)[- ]"
               r"(session|round)s?\b", re.IGNORECASE),
    re.compile(r"\bsessions? ?#?\d+\b", re.IGNORECASE),
    re.compile(r"\b(results|runs)/([\w.-]*-)?s\d+\b", re.IGNORECASE),
    re.compile(r"\bissues?[- ]?#?\d+", re.IGNORECASE),
    re.compile(r"\bissue-20\d\d-", re.IGNORECASE),
]
"""Ordinal work-round labels ("the ninth session"), numbered sessions, ``-s6`` results folders, issue numbers."""


def _load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_configuration_reference_is_current() -> None:
    generated = _load_script("gen_config_docs").render()
    committed = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == generated, (
        "docs/configuration.md differs from the settings models: run python scripts/gen_config_docs.py")


def _text_files() -> list[Path]:
    """Tracked and new (not ignored) files outside tests/, text only."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = []
    for name in listed:
        path = ROOT / name
        if name.startswith("tests/") or not path.is_file():
            continue
        head = path.read_bytes()[:8192]
        if b"\0" in head:
            continue
        files.append(path)
    return files


def test_no_work_round_labels_outside_tests() -> None:
    hits = []
    for path in _text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            found = next((m.group(0) for rx in ROUND_LABELS if (m := rx.search(line))), None)
            if found:
                hits.append(f"{path.relative_to(ROOT)}:{number}: {found!r}")
    assert not hits, ("say what the product does and when (date, commit), not the work round or issue:\n"
                      + "\n".join(hits))


def _without_code(text: str) -> str:
    """Markdown without fenced blocks and inline code spans (their brackets are not links)."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.DOTALL | re.MULTILINE)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file (repeated headings get -1, -2 ...)."""
    seen: dict[str, int] = {}
    out = set()
    text = re.sub(r"^(```|~~~).*?^\1", "", path.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE)
    for match in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, flags=re.MULTILINE):
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


@pytest.mark.parametrize("page", LINKED_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for target in LINK.findall(_without_code(page.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.IGNORECASE):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def _shell_commands(page: Path) -> list[list[str]]:
    """The simple commands of a page's bash/sh/console/shell blocks, as token lists (comments dropped)."""
    blocks = re.findall(r"^```(?:bash|sh|console|shell)[^\n]*\n(.*?)^```", page.read_text(encoding="utf-8"),
                        flags=re.DOTALL | re.MULTILINE)
    commands = []
    for block in blocks:
        for line in re.sub(r"\\\n", " ", block).splitlines():
            line = re.sub(r"^\s*\$\s+", "", line)  # a console prompt
            tokens = shlex.split(line, comments=True)
            current: list[str] = []
            for token in [*tokens, "&&"]:
                if token in ("&&", "||", ";", "|"):
                    if current:
                        commands.append(current)
                    current = []
                else:
                    current.append(token)
    return commands


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    return {opt for action in parser._actions for opt in action.option_strings}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _llm_options(command: str) -> set[str]:
    """Options of ``nl2sql llm <command>`` (its own parser in cli.llm), read from its help."""
    from cli.llm import main as llm_main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as stop:
        llm_main([command, "--help"])
    assert stop.value.code == 0, f"nl2sql llm {command} --help failed"
    return set(re.findall(r"(?<![\w-])--[a-z][\w-]*", out.getvalue()))


def _check_nl2sql(tokens: list[str]) -> list[str]:
    from cli.main import build_parser

    if len(tokens) < 2 or tokens[1].startswith("-"):
        return []
    sub = tokens[1]
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as stop:
        build_parser().parse_args([sub, "--help"])
    if stop.value.code != 0:
        return [f"no subcommand {sub!r}: {' '.join(tokens)}"]
    parser = _subparsers(build_parser())[sub]
    options = _option_strings(parser)
    rest = tokens[2:]
    nested = _subparsers(parser)
    if sub == "llm" and rest and not rest[0].startswith("-"):
        options |= _llm_options(rest[0])
    elif nested and rest and not rest[0].startswith("-"):
        if rest[0] not in nested:
            return [f"no subcommand {sub} {rest[0]!r}: {' '.join(tokens)}"]
        options |= _option_strings(nested[rest[0]])
    flags = [t.split("=", 1)[0] for t in rest if t.startswith("-") and t not in ("-", "--")]
    return [f"{sub}: no option {flag} ({' '.join(tokens)})" for flag in flags if flag not in options]


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", text, flags=re.MULTILINE))


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_documented_commands_exist(page: Path) -> None:
    problems = []
    targets = _make_targets()
    for tokens in _shell_commands(page):
        program = Path(tokens[0]).name
        if program == "nl2sql":
            problems += _check_nl2sql(tokens)
        elif program == "make":
            problems += [f"no make target {t!r}" for t in tokens[1:]
                         if not t.startswith("-") and "=" not in t and t not in targets]
    assert not problems, f"{page.relative_to(ROOT)}:\n" + "\n".join(problems)


def test_readme_is_one_page_with_one_delimited_figures_table() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 260, "the README is the one-page guide: move detail into docs/"
    block = re.search(r"<!-- headline-figures:start -->\n(.*?)<!-- headline-figures:end -->", text, re.DOTALL)
    assert block, "the headline figures sit between <!-- headline-figures:start/end --> markers"
    rows = [line for line in block.group(1).splitlines() if line.startswith("|")]
    assert len(rows) >= 3 and all(line.startswith("|") for line in block.group(1).strip().splitlines())
