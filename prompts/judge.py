"""Judge prompt: score each distinct candidate result.

Its system prompt is the generator's (same schema prefix) and its user turn starts with the same context and
question as the candidates', so the server's prompt cache serves everything up to the candidate list.
"""

USER = """{context}Question: {question}
Candidate queries gave different results:
{candidates}
Score each candidate from 1 (bad) to 5 (good) on:
- relevance: answers exactly what the question asks,
- correctness: right tables, joins, filters and values; the data looks consistent,
- completeness: every requested column/row and nothing extra; clear output.
Reply with JSON: {{"scores": [{{"candidate": 1, "relevance": 5, "correctness": 5, "completeness": 5}}, ...]}}
JSON:"""

CANDIDATE = """[{number}] SQL: {sql}
    Result: {row_count} rows, columns {columns}{preview}"""
