"""Verifier (repair) prompt: Query-Plan chain-of-thought repair of a failed query.

The repair is given the failed query, its problem (error, empty result or low judge score) and read-only
probe results (RAISE, Granado et al. 2025). Same system prompt and user prefix as the candidates, so the
prompt cache serves the schema and context.
"""

USER = """{context}Question: {question}
This query has a problem:
{sql}
Problem: {problem}
{probes}Write a corrected query. Think like a query planner, briefly: tables, join keys, filters with values
that exist (see the probes), grouping, ordering and output columns.
Reply with JSON: {{"reasoning": "<what was wrong and the fix, under 40 words>", "sql": "<the query>"}}
JSON:"""

PROBES_HEADER = "Probe queries on the database:\n"

EMPTY = ("The query ran but returned no rows. A filter value may not exist as written (compare with the "
         "probe values) or a join or condition may drop every row.")

LOW_SCORE = ("A reviewer scored its result {score:.2f} out of 1: it may not answer the question exactly. "
             "Check the output columns, filters and joins.")
