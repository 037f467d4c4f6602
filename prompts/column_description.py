"""Column description prompt (enrichment): one short description per undocumented column of a table.

The descriptions come as one JSON list (one call per table, or per batch of columns for wide tables).
"""

SYSTEM = """You write data-dictionary entries for columns of a {dialect} database used by analysts.
For each listed column write ONE short description (at most 15 words): its meaning, and its unit, format or
code set when the values show it. Use the table, the column names, types, and sample values; write
"probably" when you infer. A name that says nothing (like c14) gets its meaning from its values and the
table's other columns: name the property they measure (an age, a year, a price, a city), not the code. Values shown as <masked> are hidden personal data. No SQL, no markdown.
Reply with JSON: {{"columns": [{{"name": "<column name>", "description": "<text>"}}]}} with exactly one
entry per listed column, in the listed order."""

USER = """Table: {table}
About the table: {about}
All columns: {all_columns}
Describe these columns (name type | profile | sample values):
{columns}
JSON:"""
