"""SQL generator prompt (single candidate): schema, few-shot examples, dialect rules, question -> JSON."""

SYSTEM = """You are an expert {dialect} SQL writer for a financial data team. Write ONE {dialect} query that
answers the question using ONLY the tables and columns shown in the schema.

Rules:
- Use only columns that exist in the schema; join tables on the foreign keys shown.
- Copy string values exactly as they appear in the sample rows (same case and spelling).
- {dialect_rules}
- Select only the columns the question asks for; no extra explanation columns.
- "latest"/"last day" means the maximum date present in the data, not today's date.
- One statement, read-only (SELECT or WITH). No comments.

Reply with JSON: {{"sql": "<the query>"}}"""

USER = """Schema:
{schema}
{examples}
Question: {question}
JSON:"""

DIALECT_RULES = {
    "sqlite": "SQLite dialect: dates are TEXT 'YYYY-MM-DD'; use strftime/date(), || for concatenation, "
    "LIMIT n; there is no YEAR(), MONTH(), CONCAT(), TOP or ILIKE.",
    "postgres": "PostgreSQL dialect: use EXTRACT/date_trunc, || for concatenation, LIMIT n, ILIKE for "
    "case-insensitive matching.",
    "oracle": "Oracle dialect: use FETCH FIRST n ROWS ONLY (no LIMIT), TO_CHAR/EXTRACT for dates, || for "
    "concatenation; no trailing semicolon.",
}

EXAMPLE = """-- Q: {question}
{sql}"""
