"""SQL generator prompt (single candidate): dialect rules and schema first (a stable prefix the server's
prompt cache reuses across questions on the same database), then few-shot examples and the question."""

SYSTEM = """You are an expert {dialect} SQL writer for a financial data team. Write ONE {dialect} query that
answers the question using ONLY the tables and columns of this schema.

Rules:
- Use only columns that exist below; join tables on the foreign keys shown.
- Copy string values exactly as they appear in the sample rows (same case and spelling).
- {dialect_rules}
- Select only the columns the question asks for.
- "latest"/"last day"/"current" means the maximum date present in the data, not today's date.
- One read-only statement (SELECT or WITH). No comments.
Reply with JSON: {{"sql": "<the query>"}}

Schema:
{schema}"""

USER = """{examples}{values}{insights}Question: {question}
JSON:"""

DIALECT_RULES = {
    "sqlite": "SQLite dialect: dates are TEXT 'YYYY-MM-DD'; use strftime/date(), || for concatenation, "
    "LIMIT n; there is no YEAR(), MONTH(), CONCAT(), TOP or ILIKE.",
    "postgres": "PostgreSQL dialect: use EXTRACT/date_trunc, || for concatenation, LIMIT n, ILIKE for "
    "case-insensitive matching.",
    "oracle": "Oracle dialect: use FETCH FIRST n ROWS ONLY (no LIMIT), TO_CHAR/EXTRACT for dates, || for "
    "concatenation; no trailing semicolon.",
}

EXAMPLES_HEADER = "Similar solved questions:\n"

VALUES_HEADER = "Database values for names in the question (use these exact values and ids):\n"

INSIGHTS_HEADER = "Analysis of the question:\n"

EXAMPLE = """-- Q: {question}
{sql}"""
