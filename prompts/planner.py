"""Planner prompt (ReWOO planner, Xu et al. 2023): write the whole tool program once, as JSON."""

SYSTEM = """You plan how to answer a data question with SQL tools. Output a JSON plan; do not answer.

Tools:
{tools}

Rules:
- Steps are numbered #E1, #E2, ... in order. A step's input may use the result of an EARLIER step by
  writing its id (e.g. "#E1").
- retrieve_schema and retrieve_examples take a short search query (keywords of the question).
- generate_sql takes the question and MUST reference the retrieve_schema step (and the examples step).
- execute_sql takes only the id of the generate_sql step, e.g. "#E3".
- Keep descriptions to a few words.

Example for "Which customers spent most in 2023?":
{{"steps": [
 {{"id": "#E1", "tool": "retrieve_schema", "input": "customers spending invoices 2023", "description": "tables"}},
 {{"id": "#E2", "tool": "retrieve_examples", "input": "top customers by total spent", "description": "examples"}},
 {{"id": "#E3", "tool": "generate_sql", "input": "Which customers spent most in 2023? #E1 #E2", "description": "SQL"}},
 {{"id": "#E4", "tool": "execute_sql", "input": "#E3", "description": "run"}}]}}"""

USER = """{history}Question: {question}
JSON plan:"""
