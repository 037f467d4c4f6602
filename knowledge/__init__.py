"""Business knowledge of a database: typed, reviewed records (metrics, terms, rules, enums, synonyms).

``records`` defines them, ``files`` reads and writes the YAML knowledge file, ``lookup`` finds the records a
question needs and renders the definitions block, ``mining`` proposes records from the query workload.
"""
