"""Approved-answer reuse check (tools.reuse): does an approved query answer a new question exactly?

Sent after the generator's system prompt (the cached schema prefix), so only these lines are new prompt tokens.
The answer is one boolean; the question is framed so that any difference in entity, period, filter, ranking
direction, limit or requested columns means "false".
"""

USER = """An analyst approved this SQL as the answer to their question.
Approved question: {approved_question}
Approved SQL: {approved_sql}

New question: {question}
Does the approved SQL answer the new question exactly as asked - same companies or items, same dates or
period, same filters, same ranking direction and number of results, same kind of figure? Different wording of
the same request is the same; any other difference is not.
Reply with JSON: {{"same": true or false}}
JSON:"""
