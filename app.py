"""The NL2SQL analyst assistant in the browser: chat, developer panel and settings.

Run with ``streamlit run app.py`` (``make demo`` sets everything up first). The agent is created once per
server process and configuration (``st.cache_resource``) and shared by browser sessions; each session keeps
its own conversation, which is stored durably and can be reopened. ``?database=<url>`` picks the database.
Each session has a user (:mod:`ui.identity`): users see only their own conversations, and only developers get
the developer panel and the settings page.
"""

from __future__ import annotations

import streamlit as st

from ui import identity, services
from ui.chat import chat_page
from ui.developer import tools_tab, traces_tab
from ui.knowledge import collections_tab, indexes_tab, review_tab
from ui.knowledge_base import knowledge_tab
from ui.messages import explain
from ui.onboarding import onboarding_tab
from ui.settings_page import settings_page


def developer_page() -> None:
    """Traces, tool bench, vector collections, review queues, knowledge records, onboarding and index rebuilds."""
    st.title("Developer panel")
    if not identity.current_identity(services.settings()).developer:
        st.error("The developer panel is for developers only (users.developers).")
        st.stop()
    try:
        deps, _ = services.load_agent()
    except Exception as exc:
        st.error(f"The agent could not start: {explain(f'{type(exc).__name__}: {exc}', services.settings())}")
        st.stop()
    st.caption(f"Database `{deps.db.key}`")
    traces, bench, collections, review, knowledge, onboarding, indexes = st.tabs(
        ["Traces", "Run a tool", "Collections", "Review", "Knowledge", "Onboarding", "Indexes"])
    with traces:
        traces_tab()
    with bench:
        tools_tab(deps)
    with collections:
        collections_tab(deps)
    with review:
        review_tab(deps)
    with knowledge:
        knowledge_tab(deps)
    with onboarding:
        onboarding_tab(deps)
    with indexes:
        indexes_tab(deps)


def run() -> None:
    """Configure the page, establish the session's user and route to the chosen page (chat only for users)."""
    st.set_page_config(page_title="NL2SQL analyst", page_icon=":material/query_stats:", layout="wide")
    me = identity.current_identity(services.base_settings())
    identity.sidebar_badge(me)
    if not me.developer:
        services.lock_overrides()
    pages = [st.Page(chat_page, title="Chat", icon=":material/chat:", url_path="chat", default=True)]
    if me.developer:
        pages += [st.Page(developer_page, title="Developer panel", icon=":material/build:", url_path="developer"),
                  st.Page(settings_page, title="Settings", icon=":material/settings:", url_path="settings")]
    st.navigation(pages).run()


if __name__ == "__main__":
    run()
