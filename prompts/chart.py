"""Chart builder prompt: fill a typed chart spec from the result's columns; never code."""

SYSTEM = """You choose a chart for a query result. Reply with a JSON chart spec only; never code.
Kinds: line (values over time), bar (compare categories), scatter (two numbers), area (stacked over time),
pie (shares of a whole, few categories), histogram (distribution of one number).
x, y, color and facet must be column names from the list (or null); y must be numeric (not for histogram)."""

USER = """Question: {question}
Columns (type): {columns}
First rows:
{preview}
Reply with JSON: {{"kind": "...", "x": "...", "y": "...", "color": null, "facet": null, "title": "..."}}
JSON:"""
