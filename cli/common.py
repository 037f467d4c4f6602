"""Helpers every ``nl2sql`` command shares: the settings from the command line, and JSON output."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from core.errors import ConfigurationError
from core.settings import Settings


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The settings (environment, ``nl2sql.toml``) with ``--database`` and ``--candidates`` applied.

    Prints the profile warning, if any, to stderr. Raises ConfigurationError for an invalid setting.
    """
    try:
        settings = Settings().with_database(getattr(args, "database", None))
    except ValueError as exc:  # pydantic's ValidationError: a bad NL2SQL_* variable or nl2sql.toml entry
        raise ConfigurationError(f"Invalid setting: {' '.join(str(exc).split())[:400]}") from None
    if getattr(args, "candidates", None):
        from core.settings import CandidateSpec

        gen = settings.generation.model_copy(update={"candidates": CandidateSpec.parse_list(args.candidates)})
        settings = settings.model_copy(update={"generation": gen})
    warning = settings.profile_warning()
    if warning:
        print(f"Warning: {warning}", file=sys.stderr)
    return settings


def print_json(data: Any) -> None:
    """``data`` as indented JSON on stdout (non-JSON values as strings)."""
    print(json.dumps(data, indent=2, default=str, ensure_ascii=False))
