"""Prompt templates, one module per LLM role (planner, generator, organizer).

Each module exposes ``SYSTEM`` (a stable prefix, so the local server's prompt cache can reuse it across
questions) and ``USER`` (a ``str.format`` template for the per-question part).
"""
