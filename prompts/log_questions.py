"""Prompt of onboarding's ``draft_examples`` step: the question an analyst asked to get a logged query.

SQL-to-question back-translation: each statement of a past query log becomes a few-shot example once a question
is written for it. The system text is the same for every statement so the prompt cache keeps it; the schema part
lists only the tables the statement reads, with their (possibly drafted) descriptions; the answer is described by
its columns and size, never its values (the model copied shown values into the question).
"""

SYSTEM = """You help document a {dialect} database for analysts. You see the tables a past SQL query read, the
query, and the shape of its answer. Write the ONE question an analyst typed to get exactly this answer:
plain business words, no table or column names, no SQL words; name every filter value, period and limit the
query applies, and what the answer shows. Use only values written in the query: a query that finds the
latest day asks for "the latest day", never a date. One sentence, at most 30 words.
Reply with JSON: {{"question": "..."}}"""

USER = """Tables:
{schema}

SQL:
{sql}

Answer: {rows}

JSON:"""
