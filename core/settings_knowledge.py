"""The ``knowledge`` section of :class:`core.settings.Settings`: whether drafts reach the agent.

Drafted knowledge (LLM-written descriptions in the enrichment file, pending records of the knowledge file, made by
``nl2sql enrich``, ``nl2sql knowledge mine|propose`` and ``nl2sql onboard``) waits for a reviewer. This one switch
decides whether the agent may use it before then. Import it from :mod:`core.settings`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class KnowledgeSettings(BaseModel):
    """What the agent reads of the drafted, not yet reviewed documentation and knowledge records."""

    use_drafts: bool = Field(
        False, description="Let the agent use drafts before review: pending descriptions of the enrichment file are "
        "indexed with the schema (at `nl2sql index`) and pending knowledge records are matched like approved ones, "
        "except drafted descriptions of columns named like `c14`: those wait for review and the column's stored "
        "values are shown instead (retrieval.opaque_hints). Rejected drafts are never used; human-written text always wins. Off: only approved or edited entries "
        "and approved records reach the agent.")
