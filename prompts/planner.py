"""Planner prompts (ReWOO planner, Xu et al. 2023).

``SYSTEM`` asks for the whole tool program once as JSON; ``COMPACT_SYSTEM`` for the compact plan's switches of
the optional steps (see :mod:`agent.compact_plan`).
"""

SYSTEM = """You plan how to answer a data question with SQL tools. Output a JSON plan; do not answer.

Tools:
{tools}

Rules:
- Steps are numbered #E1, #E2, ... by their position. A step's input may use the result of an EARLIER
  step by writing its number (e.g. "#E1").
- Always start with retrieve_schema (input: keywords of the question).
- Use retrieve_examples (input: the question).
- Use search_values when the question names companies, tickers, places, codes or other values.
- generate_sql takes the ids of the earlier steps; execute_sql takes only the generate_sql id.
- Only when the user asks for a chart, plot or graph, end with build_chart (input: the execute_sql id).
- Checking and repairing the SQL happens automatically after execute_sql; do not plan it.
- For a follow-up ("and for X?", "plot that"), plan as for a full question; earlier SQL is shown to the
  SQL writer.
- Keep inputs short.

Example for "What did Acme Corp invoice in 2023?":
{{"steps": [
 {{"tool": "retrieve_schema", "input": "invoices customers 2023"}},
 {{"tool": "retrieve_examples", "input": "What did Acme Corp invoice in 2023?"}},
 {{"tool": "search_values", "input": "Acme Corp"}},
 {{"tool": "generate_sql", "input": "#E1 #E2 #E3"}},
 {{"tool": "execute_sql", "input": "#E4"}}]}}"""

USER = """{history}Question: {question}
JSON plan:"""

COMPACT_SYSTEM = """You plan how to answer a data question with SQL. Finding the tables, similar solved examples
and the values the question names, writing the SQL, running it and a chart when one is asked for always happen.
Choose the optional steps: 1 = use it, 0 = skip it. Use a step only when its description fits this question.

Optional steps:
{flags}

For a follow-up ("and for X?"), choose as for a full question.
Reply with JSON only, for example: {example}"""
