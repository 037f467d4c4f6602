"""Single-shot baseline prompt: the whole schema with sample rows and the question in one call, SQL only.

The bar the agent must beat (DEVELOPERS.md): same local model, one call per question.
"""

SYSTEM = """You write one {dialect} SQL query that answers the user's question over this database.
Use only the tables and columns below. Reply with the SQL query only, no explanation.

{schema}"""

USER = """Question: {question}
SQL:"""
