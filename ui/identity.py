"""Who is using this browser session, and whether they get the developer panel.

The user is, first match wins:

1. the OIDC login of Streamlit (``st.login`` / ``st.user``) when an ``[auth]`` section is configured in
   Streamlit's secrets; a session that has not logged in sees only a log-in button. The user name is the
   token's ``email``, else ``preferred_username``, else ``sub``;
2. the trusted request header ``users.trusted_header`` (e.g. ``X-Forwarded-User``, set by an authenticating
   reverse proxy) when that setting is not empty; a request without it is refused (it did not come through
   the proxy);
3. ``users.default_user`` (default ``local``: the single-user demo).

Users listed in ``users.developers`` (default ``["local"]``) are developers: they see the developer panel and
the settings page; everyone else gets the chat only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import streamlit as st

from core.settings import Settings, UsersSettings

Source = Literal["oidc", "header", "default"]
NAME_CLAIMS = ("email", "preferred_username", "sub")
MAX_USER_CHARS = 200


class IdentityError(ValueError):
    """The session's user cannot be established (the message says why, for the page)."""


@dataclass(frozen=True)
class Identity:
    """The user of one browser session: ``user`` (their name), where it came from, and the developer role."""

    user: str
    source: Source
    developer: bool


def resolve(users: UsersSettings, headers: Mapping[str, str], oidc: Mapping[str, Any] | None = None) -> Identity:
    """The identity given the OIDC claims (None: OIDC not configured), the request headers and the settings.

    ``headers`` are looked up as given: pass a case-insensitive mapping such as ``st.context.headers``.

    Raises:
        IdentityError: OIDC claims without a usable name, or a configured trusted header missing or empty.
    """
    if oidc is not None:
        name = next((str(oidc[c]).strip() for c in NAME_CLAIMS if str(oidc.get(c) or "").strip()), "")
        if not name:
            raise IdentityError(f"The login did not give a user name (none of the claims {', '.join(NAME_CLAIMS)}).")
        return _identity(users, name, "oidc")
    header = users.trusted_header.strip()
    if header:
        name = (headers.get(header) or "").strip()
        if not name:
            raise IdentityError(f"Access refused: the request carries no {header} header (the app expects to be "
                                "reached through its signing-in proxy).")
        return _identity(users, name, "header")
    return _identity(users, users.default_user.strip(), "default")


def _identity(users: UsersSettings, name: str, source: Source) -> Identity:
    if len(name) > MAX_USER_CHARS:
        raise IdentityError(f"The user name is too long ({len(name)} characters; at most {MAX_USER_CHARS}).")
    return Identity(user=name, source=source, developer=name in {d.strip() for d in users.developers})


def oidc_configured() -> bool:
    """True when Streamlit's secrets have an ``[auth]`` section (no secrets file, or a broken one: False)."""
    try:
        return bool(st.secrets.load_if_toml_exists()) and "auth" in st.secrets
    except Exception:  # a secrets file that does not parse: OIDC is not usable, so it is not configured
        return False


def current_identity(settings: Settings) -> Identity:
    """This browser session's identity (:func:`resolve` on ``st.user`` and ``st.context.headers``).

    Stops the page instead of returning when the session must log in first (a log-in button is shown) or
    when the user cannot be established (the reason is shown).
    """
    oidc: dict[str, Any] | None = None
    if oidc_configured():
        if not st.user.is_logged_in:
            st.info("Please log in to use the assistant.")
            st.button("Log in", icon=":material/login:", on_click=st.login)
            st.stop()
        oidc = st.user.to_dict()
    try:
        return resolve(settings.users, st.context.headers, oidc)
    except IdentityError as exc:
        st.error(str(exc))
        st.stop()
        raise  # st.stop() raises; this line keeps type checkers sure nothing is returned


def sidebar_badge(identity: Identity) -> None:
    """The signed-in user in the sidebar, with a log-out button for OIDC sessions."""
    with st.sidebar:
        role = " (developer)" if identity.developer else ""
        st.caption(f":material/person: {identity.user}{role}")
        if identity.source == "oidc":
            st.button("Log out", icon=":material/logout:", on_click=st.logout)
