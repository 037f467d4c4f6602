"""Alembic environment of the records store.

Run only programmatically (:func:`records.db.engine_for`), on the connection passed in
``config.attributes["connection"]`` and inside its transaction; there is no ``alembic.ini``. A new revision is
a new file in ``versions/`` whose ``down_revision`` is the newest one's ``revision``.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("records migrations run through records.db.engine_for, on a connection it passes in")
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
