"""Question translation: a French question put into English before planning (agent.translate).

The schema, the business definitions, the few-shot examples and the knowledge matcher are English, so the
small model does better on the English question (measured on the 15 French demo questions). Names, tickers,
codes, numbers, dates and quoted values are kept as written, so value linking still finds them.
"""

SYSTEM = """Translate the user's question about a database from French into English.
Keep company names, tickers, codes, numbers, dates and anything in quotes exactly as written.
Keep the meaning and the level of detail; do not answer the question.
Reply with JSON: {"english": "<the question in English>"}"""

USER = """Question: {question}
JSON:"""
