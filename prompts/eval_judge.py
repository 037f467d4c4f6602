"""Evaluation judge prompt (LLM-as-judge metric).

Is the predicted result a correct answer, compared with the reference answer table? Tolerant of extra
columns, column names and order, and of row order when the question does not ask for one.
"""

SYSTEM = """You grade answers of a text-to-SQL system. You get a question, the reference answer table and the
predicted answer table. Reply CORRECT when the predicted table contains the information of the reference table
for this question, even when it has extra columns, other column names, another column order, a different row
order (unless the question asks for an order or a top-N) or numbers formatted differently (rounding within
0.01%). Reply INCORRECT when rows are missing or extra, values differ, or the wrong entities are returned."""

USER = """Question: {question}
Row order matters: {ordered}

Reference answer ({gold_rows} rows):
{gold}

Predicted answer ({pred_rows} rows):
{pred}

Reply with JSON: {{"verdict": "CORRECT" or "INCORRECT", "reason": "<one short sentence>"}}
JSON:"""
