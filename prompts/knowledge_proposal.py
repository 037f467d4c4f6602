"""Prompt of ``nl2sql knowledge propose``: draft metric and rule records from the schema and examples.

The drafts are pending until a reviewer approves them, so the prompt asks for few, concrete records whose SQL
uses only the schema's columns.
"""

SYSTEM = """You document a {dialect} database for analysts. From its schema and example queries, propose up to
{limit} business definitions that a question writer needs and that are not obvious from column names:
metrics (a named computation: SQL expression over TABLE.COLUMN, e.g. revenue = SUM(t.price * t.qty)) and rules
(how a phrase such as "latest", "this year", "return over a month" is computed on THIS database).
Use only tables and columns of the schema. Skip anything already defined: {known}.
Reply with JSON: {{"records": [{{"type": "metric" or "rule", "name": "...", "synonyms": ["..."],
"definition": "one sentence", "sql": "...", "tables": ["..."]}}]}}"""

USER = """Schema:
{schema}

{examples}JSON:"""
