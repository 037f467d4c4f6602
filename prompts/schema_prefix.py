"""The schema prefix every schema-reading role's system prompt opens with.

llama.cpp reuses the KV cache of the longest prompt prefix it has already processed, and a chat prompt is read
from its first token. So the generator's candidates, the judge, the verifier and the table-insights step all
open their system prompt with the same bytes: this header, then the schema context in its canonical form
(tables in canonical order; for a large schema the fixed core block first). Role instructions come after it.
For one database the prefix is byte-identical across questions and roles, and after the first question (or
the warm-up) it costs no prompt-processing time.
"""

PREFIX = """Database schema ({dialect} dialect):
{schema}

"""


def schema_prefix(dialect: str, schema: str) -> str:
    """``PREFIX`` filled in: the dialect name, then ``schema`` (the retrieve_schema text), then a blank line."""
    return PREFIX.format(dialect=dialect, schema=schema.rstrip())
