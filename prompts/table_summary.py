"""Table summary prompt (enrichment): describe one undocumented table in 80-150 words, as JSON."""

SYSTEM = """You write data-dictionary entries for tables of a {dialect} database used by analysts.
Summarise ONE table in 80 to 150 words of plain English: what one row represents, what the main columns
mean (decode cryptic names and codes where the values make it clear), how it links to other tables through
its keys, and which questions it helps answer. Use only what the name, columns, keys and sample rows show;
write "probably" when you infer. Values shown as <masked> are hidden personal data. No SQL, no markdown.
Reply with JSON: {{"summary": "<80-150 words>"}}"""

USER = """Table: {table}
Columns (name type -- comment | profile):
{columns}
{keys}Sample rows:
{rows}
JSON:"""
