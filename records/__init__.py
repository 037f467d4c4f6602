"""Durable local records of the product: conversations, run traces, user feedback and review actions.

Conversations and run traces are in :mod:`records.runs`, user feedback in :mod:`records.feedback` and the
review actions that turn feedback into few-shot examples in :mod:`records.review`, the SQL audit log in
:mod:`records.audit`. All live in SQLite files
under ``Settings.state_dir`` or, with ``Settings.state_url``, in one PostgreSQL database (:mod:`records.paths`);
the tables (:mod:`records.schema`) are kept at the newest Alembic revision (``records/migrations``) by
:mod:`records.db` on first use. Each SQLite file holds all the tables, the ones it does not use empty.
"""
