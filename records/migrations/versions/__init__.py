"""Alembic revisions of the records store, oldest first (``0001_initial``, ...)."""
