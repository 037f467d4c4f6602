"""Table-insights prompt: which tables, columns, joins and filters answer the question.

It is asked briefly, before SQL is written. The shared schema prefix first (:mod:`prompts.schema_prefix`, the
same bytes as the generator's, so the server's prompt cache serves both), then resolved values and the question. Output is short on purpose: every output token of the local model
costs ~60 ms.
"""

SYSTEM = """{schema_prefix}You are a data analyst planning a {dialect} query. Using ONLY tables and columns of
the schema above, say briefly how to answer the question: the tables needed, the key columns (TABLE.COLUMN), the join
conditions (foreign keys), the filters with exact values (copy resolved values exactly) and a one-sentence
strategy; restate the question precisely. Do not write SQL. Keep every item short.
Reply with JSON: {{"relevant_tables": [...], "key_columns": [...], "join_paths": ["A.x = B.y"],
"filters": ["TABLE.COLUMN = 'value'"], "strategy": "...", "clarified_question": "..."}}"""

USER = """{values}Question: {question}
JSON:"""

VALUES_HEADER = "Resolved values (mention -> exact database value):\n"
