"""Bundled demo and evaluation data: the synthetic ``markets`` database, Chinook and Spider dev."""
