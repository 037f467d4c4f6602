"""Deterministic rewrites of generated SQL, declared once in :mod:`rewrites.pipeline` and run by its runner.

Each module is one transform (column qualifiers, missing joins, dangling joins, simplification, as-of dates,
look-back windows, period bounds, rate direction, knowledge-bound codes, answer conventions, filter literals,
copied entities); :data:`rewrites.pipeline.STEPS` orders them and says in which phase each runs. The package
reads no settings file and imports neither ``tools`` nor ``agent``: the tools layer hands it the question, the
index catalog, the database and the knowledge-derived inputs.
"""
