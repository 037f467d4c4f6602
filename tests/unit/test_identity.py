"""Users of the app: who a session is (OIDC claims, trusted header, default), the developer role, and in the app
(Streamlit's AppTest) each user seeing only their own conversations, non-developers the chat only."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import PROJECT_ROOT, Settings, UsersSettings
from records.audit import AuditLog
from records.paths import audit_path
from tests.unit.app_fixtures import app_env  # noqa: F401 (fixture)
from ui.identity import IdentityError, resolve

APP = str(PROJECT_ROOT / "app.py")
DEVELOPER = "from app import developer_page\ndeveloper_page()\n"
HEADER = "X-Forwarded-User"


def test_the_default_user_is_a_developer_unless_configured_otherwise() -> None:
    me = resolve(UsersSettings(), {})
    assert (me.user, me.source, me.developer) == ("local", "default", True)
    other = resolve(UsersSettings(default_user="guest", developers=["admin"]), {HEADER: "mallory"})
    assert (other.user, other.source, other.developer) == ("guest", "default", False)  # header not trusted


def test_a_trusted_header_names_the_user_and_is_required_once_configured() -> None:
    users = UsersSettings(trusted_header=HEADER, developers=["dana"])
    assert resolve(users, {HEADER: " erin "}) == resolve(users, {HEADER: "erin"})
    assert resolve(users, {HEADER: "erin"}).source == "header" and not resolve(users, {HEADER: "erin"}).developer
    assert resolve(users, {HEADER: "dana"}).developer
    for headers in ({}, {HEADER: "  "}):
        with pytest.raises(IdentityError, match="no X-Forwarded-User header"):
            resolve(users, headers)
    with pytest.raises(IdentityError, match="too long"):
        resolve(users, {HEADER: "x" * 500})


def test_oidc_claims_come_first() -> None:
    users = UsersSettings(trusted_header=HEADER, developers=["ann@example.com"])
    me = resolve(users, {HEADER: "erin"}, {"email": "ann@example.com", "sub": "123", "is_logged_in": True})
    assert (me.user, me.source, me.developer) == ("ann@example.com", "oidc", True)
    assert resolve(users, {}, {"sub": "123"}).user == "123"
    with pytest.raises(IdentityError, match="did not give a user name"):
        resolve(users, {}, {"is_logged_in": True})


def _session(monkeypatch: pytest.MonkeyPatch, user: str) -> AppTest:
    """A fresh browser session of ``user`` (the default user setting stands for the identity)."""
    monkeypatch.setenv("NL2SQL_USERS__DEFAULT_USER", user)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def _run(at: AppTest, monkeypatch: pytest.MonkeyPatch, user: str, question: str | None = None) -> AppTest:
    monkeypatch.setenv("NL2SQL_USERS__DEFAULT_USER", user)
    if question:
        at.chat_input[0].set_value(question)
    at.run()
    assert not at.exception, at.exception
    return at


def _threads(at: AppTest) -> list[str]:
    """Titles of the conversations listed in the sidebar."""
    return [b.label.removeprefix("▸ ").split(" · ")[0] for b in at.sidebar.button if "·" in b.label]


def _pages(at: AppTest) -> set[str]:
    return {str(info.get("url_pathname")) for info in at._registered_pages.values()}


def test_each_user_sees_only_their_own_conversations(monkeypatch: pytest.MonkeyPatch,
                                                     app_env: Settings) -> None:  # noqa: F811
    monkeypatch.setenv("NL2SQL_USERS__DEVELOPERS", '["admin"]')
    alice = _run(_session(monkeypatch, "alice"), monkeypatch, "alice", "How many customers are from Brazil?")
    bob = _run(_session(monkeypatch, "bob"), monkeypatch, "bob", "Customers per country")
    assert _threads(bob) == ["Customers per country"]
    assert not any(m.value.startswith("How many") for m in bob.markdown)

    alice = _run(alice, monkeypatch, "alice")
    assert _threads(alice) == ["How many customers are from Brazil?"]
    bob.session_state.thread_id = alice.session_state.thread_id  # bob cannot read alice's thread by its id
    bob = _run(bob, monkeypatch, "bob")
    assert bob.session_state.thread_id == alice.session_state.thread_id
    assert not any(m.value.startswith("How many") for m in bob.main.markdown)

    assert any(c.value.startswith(":material/person: alice") for c in alice.sidebar.caption)
    assert "developer" not in _pages(alice) and "settings" not in _pages(alice)  # the chat only
    audited = AuditLog(audit_path(app_env)).recent()
    assert {r["user_id"] for r in audited} == {"alice", "bob"}
    assert all(r["ok"] and r["database"] == "shop" for r in audited)


def test_developers_get_the_panel_and_others_are_refused(monkeypatch: pytest.MonkeyPatch,
                                                         app_env: Settings) -> None:  # noqa: F811
    monkeypatch.setenv("NL2SQL_USERS__DEVELOPERS", '["admin"]')
    admin = _session(monkeypatch, "admin")
    assert {"developer", "settings"} <= _pages(admin)
    assert any("(developer)" in c.value for c in admin.sidebar.caption)
    monkeypatch.setenv("NL2SQL_USERS__DEFAULT_USER", "alice")
    panel = AppTest.from_string(DEVELOPER, default_timeout=60).run()
    assert any("developers only" in e.value for e in panel.error)
    assert not panel.tabs


def test_a_missing_trusted_header_is_refused(monkeypatch: pytest.MonkeyPatch, app_env: Settings) -> None:  # noqa: F811
    monkeypatch.setenv("NL2SQL_USERS__TRUSTED_HEADER", HEADER)
    at = AppTest.from_file(APP, default_timeout=60).run()  # AppTest sends no such header
    assert any("no X-Forwarded-User header" in e.value for e in at.error)
    assert not at.chat_input
