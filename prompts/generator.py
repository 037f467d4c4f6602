"""SQL generator prompts: one shared system prompt, then one user template per candidate strategy.

The system prompt is the shared schema prefix (:mod:`prompts.schema_prefix`) followed by the rules: a stable
prefix that the server's prompt cache reuses across questions and across candidates, the judge, the verifier
and the table-insights step.

The user turn orders its parts by how widely they are shared: knowledge, conversation history and few-shot
examples first (every strategy reads them), then the join paths, value matches and question analysis (the hinted
strategies, repairs, the judge and the verifier read them; ``plain`` does not), then the question. So the hint-free
``plain`` candidate, written right after ``direct``, reuses ``direct``'s cached prompt up to the hints and reads
only its question (on the demo schema ~400 fewer prompt tokens, ~5 s on 2 cores).

Strategies (CHASE-SQL, Pourreza et al. 2024): ``direct`` writes SQL only; ``plain`` writes SQL only as free
text and sees the question without the join, value and insight hints (the single-shot reading, a second
opinion for self-consistency); ``divide_and_conquer`` splits the
question into sub-questions, solves each as a partial query and assembles them; ``query_plan`` reasons like a
database engine's plan (tables to scan, joins, filters, grouping, ordering, output). Reasoning is kept short
and capped by the JSON grammar: on the local 2-core model each output token costs ~45-65 ms.

``whole_schema`` is the one strategy with another system prompt: the single-shot prompt over the whole schema as
DDL with sample rows (:mod:`tools.whole_schema`, :mod:`prompts.baseline`), with the knowledge and the
conversation but without examples or hints, so its mistakes are not the other candidates' mistakes.
"""

SYSTEM = """{schema_prefix}You are an expert {dialect} SQL writer. Queries must answer the
question using ONLY the tables and columns of the schema above.

Rules:
- Use only columns that exist below; join tables on the foreign keys shown.
- Copy string values exactly as they appear in the sample rows (same case and spelling).
- {dialect_rules}
- Select only the columns the question asks for.
- "latest"/"last day"/"current" means the maximum date present in the data, not today's date.
- One read-only statement (SELECT or WITH). No comments."""

DIRECT = """{knowledge}{history}{examples}{columns}{joins}{values}{insights}Question: {question}
Reply with JSON: {{"sql": "<the query>"}}
JSON:"""

PLAIN = """{knowledge}{history}{examples}Question: {question}
Reply with the SQL query only, no explanation.
SQL:"""

DIVIDE_AND_CONQUER = """{knowledge}{history}{examples}{columns}{joins}{values}{insights}Question: {question}
Think with divide and conquer, briefly: split the question into 1-3 sub-questions, name the table/column or
partial SQL that answers each, then combine them into ONE final query.
Reply with JSON: {{"reasoning": "<sub-questions and how they combine, under 40 words>", "sql": "<the query>"}}
JSON:"""

QUERY_PLAN = """{knowledge}{history}{examples}{columns}{joins}{values}{insights}Question: {question}
Think like a query planner, briefly: which tables to read, how they join (which keys), which filters (exact
values), grouping/aggregation, ordering/limit, and which columns to output.
Reply with JSON: {{"reasoning": "<the plan in under 40 words>", "sql": "<the query>"}}
JSON:"""

WHOLE_SCHEMA = """{knowledge}{history}Question: {question}
SQL:"""

TEMPLATES = {"direct": DIRECT, "plain": PLAIN, "divide_and_conquer": DIVIDE_AND_CONQUER, "query_plan": QUERY_PLAN,
             "whole_schema": WHOLE_SCHEMA}

DIALECT_RULES = {
    "sqlite": "SQLite dialect: dates are TEXT 'YYYY-MM-DD'; use strftime/date(), || for concatenation, "
    "LIMIT n; there is no YEAR(), MONTH(), CONCAT(), TOP or ILIKE.",
    "postgres": "PostgreSQL dialect: use EXTRACT/date_trunc, || for concatenation, LIMIT n, ILIKE for "
    "case-insensitive matching.",
    "oracle": "Oracle dialect: use FETCH FIRST n ROWS ONLY (no LIMIT), TO_CHAR/EXTRACT for dates, || for "
    "concatenation; no trailing semicolon.",
}

EXAMPLES_HEADER = "Similar solved questions:\n"

JOINS_HEADER = "Join paths between the tables most relevant to the question (use only when needed):\n"

VALUES_HEADER = ("Stored values that may match words of the question (use one, spelled exactly, only where the "
                 "question refers to it):\n")

INSIGHTS_HEADER = "Analysis of the question:\n"

HISTORY_HEADER = "Earlier questions in this conversation (the new question may refer to them):\n"

EXAMPLE = """-- Q: {question}
{sql}"""
