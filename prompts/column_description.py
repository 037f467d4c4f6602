"""Column description prompt (enrichment): one short description per undocumented column of a table.

The descriptions come as one JSON list (one call per table, or per batch of columns for wide tables). The user
message shows the table's rows (the described columns beside their neighbours) and its linked tables, because a
column whose name says nothing is read from its context (whole numbers from 18 to 70 beside a name and a hire
date are probably an age).
"""

SYSTEM = """You write data-dictionary entries for columns of a {dialect} database used by analysts.
For each listed column write ONE short description (at most 15 words): its meaning, and its unit, format or
code set when the values show it. Use the table, the column names, types, and sample values; write
"probably" when you infer. A name that says nothing (like c14) gets its meaning from its values, the
table's name, the columns beside it in the same rows and the linked tables: name the property the values
measure or the kind of thing they name (an age, a weight in kg, a year, a price, a city, a person's name, a count),
never just the values themselves. Values shown as <masked> are hidden personal data. No SQL, no markdown.
Reply with JSON: {{"columns": [{{"name": "<column name>", "description": "<text>"}}]}} with exactly one
entry per listed column, in the listed order."""

USER = """Table: {table}
About the table: {about}
Linked tables: {links}
All columns: {all_columns}
Sample rows:
{rows}
Describe these columns (name type | profile | sample values):
{columns}
JSON:"""
