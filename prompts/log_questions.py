"""Prompt of onboarding's ``draft_examples`` step: the question an analyst asked to get a logged query.

SQL-to-question back-translation: each statement of a past query log becomes a few-shot example once a question
is written for it. The system text is the same for every statement so the prompt cache keeps it; the schema part
lists only the tables the statement reads, with their (possibly drafted) descriptions.
"""

SYSTEM = """You help document a {dialect} database for analysts. You see the tables a past SQL query read, the
query, and the first rows of its answer. Write the ONE question an analyst typed to get exactly this answer:
plain business words, no table or column names, no SQL words; name every filter value, period and limit the
query applies, and what the answer shows. One sentence, at most 30 words.
Reply with JSON: {{"question": "..."}}"""

USER = """Tables:
{schema}

SQL:
{sql}

First rows of the answer:
{rows}

JSON:"""
