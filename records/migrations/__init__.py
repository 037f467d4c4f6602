"""Alembic migrations of the records store, applied by :func:`records.db.engine_for` on first use."""
