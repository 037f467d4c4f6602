"""Human-readable explanations of failures for analysts (the technical text stays in the trace)."""

from __future__ import annotations

import re

from core.settings import Settings

_ENDPOINT = re.compile(r"connection error|connection refused|connecterror|apiconnectionerror|timed? ?out|"
                       r"failed to establish|name or service not known|502|503|server disconnected", re.I)
_DATABASE = re.compile(r"unable to open database|could not connect to server|database .* does not exist|"
                       r"no such file|ORA-12541|ORA-01017|authentication failed|database is locked", re.I)
_OUTSIDE = re.compile(r"no such (table|column)|invalid identifier|ORA-00904|ORA-00942|"
                      r"(relation|column) .* does not exist", re.I)
_NO_INDEX = re.compile(r"no schema index|no index|not been indexed|no tables indexed|index is empty", re.I)


def explain(text: str | None, settings: Settings) -> str:
    """A message an analyst can act on for the error ``text``.

    ``text`` is an answer of status error or an exception's text; unrecognised errors keep their text after
    a short lead-in.
    """
    raw = (text or "").strip() or "unknown error"
    if _ENDPOINT.search(raw):
        where = settings.generator.base_url
        hint = (" The embedded model starts with the app; if it stopped, run `nl2sql llm serve`."
                if settings.is_local("generator") else " Check the endpoint and its API key in the settings.")
        return f"The language model at {where} did not answer, so the question could not be processed.{hint}"
    if _DATABASE.search(raw):
        return (f"The database could not be reached ({settings.database_url.split('?')[0]}). Check that it is "
                f"running and that the URL in the settings is right. Details: {raw}")
    if _NO_INDEX.search(raw):
        return ("This database has not been indexed yet. Rebuild its indexes in the developer panel "
                "(Indexes tab) or run `nl2sql index`.")
    if _OUTSIDE.search(raw):
        return ("The question may ask for data this database does not hold: the query needed a table or column "
                f"that does not exist. Try rephrasing with the data's own terms. Details: {raw}")
    return raw
