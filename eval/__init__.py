"""Evaluation of the NL2SQL agent: datasets, configurations, scoring, summaries and reports."""
