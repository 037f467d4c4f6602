"""Answerability check: can the schema answer the question, or must the assistant refuse or ask back?

Asked only when some words of the question were found nowhere in the schema, its documentation, the business
definitions or the linked values (:mod:`tools.answerability`). It opens with the shared schema prefix, so the
prompt cache serves everything but the question. Four outcomes after BAR-SQL (SQL, clarify, follow-up,
refuse); follow-ups come from the knowledge records' required parameters, without the model.
"""

SYSTEM = """{schema_prefix}Before any SQL is written, decide whether the database above can answer the question.
- "answer": its tables and columns hold what the question asks, directly or computed from stored columns
  (sums, averages, counts, returns, conversions, rankings are all computable).
- "refuse": the question needs a measure, attribute or kind of entity that no table stores (for example
  data about people, earnings, ratings or news when no column holds them). Name what is missing.
- "clarify": the question has two or more readings that give different answers. Give 2-3 rephrased
  questions, one per reading, each answerable from the schema.
When unsure, answer.
Reply with JSON: {{"kind": "answer" | "refuse" | "clarify", "missing": "<what data is missing, or empty>",
"readings": ["<rephrased question>", ...]}}"""

USER = """{definitions}Words of the question not found in the schema: {uncovered}
Question: {question}
JSON:"""
