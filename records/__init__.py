"""Durable local records of the product: conversations and run traces (:mod:`records.runs`), user feedback
(:mod:`records.feedback`) and the review actions that turn feedback into few-shot examples
(:mod:`records.review`). All live in SQLite files under ``Settings.state_dir``."""
