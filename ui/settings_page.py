"""Settings view: which database, which model per role (secrets never shown), examples on/off, candidates.

Choices here apply to this browser session only (other sessions keep theirs); the deployment's defaults come
from ``NL2SQL_*`` variables or ``nl2sql.toml``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.settings import DATA_DIR, DEMO_DB_PATH, ROLES, CandidateSpec
from ui import services

BUNDLED = {"Demo: markets (financial)": f"sqlite:///{DEMO_DB_PATH}",
           "Chinook (music store)": f"sqlite:///{DATA_DIR / 'chinook' / 'Chinook_Sqlite.sqlite'}"}


def settings_page() -> None:
    """Show the effective configuration and let the session change database, examples and candidates."""
    st.title("Settings")
    cfg, ov = services.settings(), services.overrides()
    st.subheader("Models")
    rows = [{"role": r, "model": cfg.llm(r).model, "endpoint": cfg.llm(r).base_url,
             "temperature": cfg.llm(r).temperature, "max tokens": cfg.llm(r).max_tokens,
             "api key": "set" if cfg.llm(r).api_key.get_secret_value() else "none"} for r in ROLES]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption("API keys are never displayed. Models and endpoints are set with NL2SQL_<ROLE>__MODEL and "
               "NL2SQL_<ROLE>__BASE_URL (or nl2sql.toml).")
    with st.form("session-settings"):
        st.subheader("This browser tab")
        options = [*BUNDLED, "Other URL"]
        current = next((k for k, v in BUNDLED.items() if v == cfg.database_url), "Other URL")
        choice = st.selectbox("Database", options, index=options.index(current))
        custom = st.text_input("SQLAlchemy URL (for 'Other URL')",
                               value=cfg.database_url if current == "Other URL" else "")
        use_examples = st.toggle("Few-shot examples", value=cfg.retrieval.use_examples)
        spec = ",".join(f"{c.strategy}:{c.temperature:g}" for c in cfg.candidate_specs())
        candidates = st.text_input("SQL candidates (strategy:temperature, comma-separated; direct, qp, dc)",
                                   value=spec)
        st.caption(f"{cfg.generation_profile()} profile · {len(cfg.candidate_specs())} candidates · cascade "
                   f"{'on' if cfg.cascade_candidates() else 'off'} · parallel "
                   f"{'on' if cfg.parallel_candidates() else 'off'}")
        if st.form_submit_button("Apply"):
            url = BUNDLED.get(choice) or custom.strip() or None
            try:
                CandidateSpec.parse_list(candidates)
            except ValueError as exc:
                st.error(f"Candidates: {exc}")
                return
            st.session_state.overrides = services.Overrides(
                database_url=url, use_examples=use_examples,
                candidates=None if candidates == spec and ov.candidates is None else candidates)
            st.session_state.pop("thread_id", None)  # a new database starts a new conversation
            st.success("Applied to this browser tab.")
            st.rerun()
    st.subheader("Other settings")
    st.json({"row_cap": cfg.row_cap, "query_timeout_s": cfg.query_timeout_s,
             "auto_approve_feedback": cfg.auto_approve_feedback, "state_dir": str(cfg.state_dir),
             "examples_path": str(cfg.resolved_examples_path()), "schema_token_budget":
             cfg.retrieval.schema_token_budget, "use_insights": cfg.use_insights}, expanded=False)
