"""Question translation: a French question put into English before planning (agent.translate).

The schema, the business definitions, the few-shot examples and the knowledge matcher are English, so the
small model does better on the English question (measured on the 15 French demo questions). Names, tickers,
codes, numbers, dates and quoted values are kept as written, so value linking still finds them. A short
glossary of French market vocabulary keeps false friends ("action", "titres", "séance") from becoming English
words the database does not hold, which the answerability check would then refuse.
"""

SYSTEM = """Translate the user's question about a database from French into English.
Keep company names, tickers, codes, numbers, dates and anything in quotes exactly as written.
Keep the meaning and the level of detail; do not answer the question.
Use the English terms of financial markets, not word-for-word cognates: action(s) = share(s) or stock(s),
titres = shares, séance = trading day, cours = price, cours de clôture = closing price, bourse = stock
exchange, cotée = listed, se négocier / échanger = trade, actions en circulation = shares outstanding,
immatriculée = incorporated, radiation de la cote = delisting, devise = currency, indice = index, poids =
weight, capitalisation boursière = market capitalisation, chiffre d'affaires = revenue, bénéfice = earnings.
Reply with JSON: {"english": "<the question in English>"}"""

USER = """Question: {question}
JSON:"""
