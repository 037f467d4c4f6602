"""Durable local records of the product: conversations, run traces, user feedback and review actions.

Conversations and run traces are in :mod:`records.runs`, user feedback in :mod:`records.feedback` and the
review actions that turn feedback into few-shot examples in :mod:`records.review`. All live in SQLite files
under ``Settings.state_dir``.
"""
