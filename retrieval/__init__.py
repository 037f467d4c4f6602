"""Retrieval of tables, few-shot examples and database values for a question, and their indexes."""
