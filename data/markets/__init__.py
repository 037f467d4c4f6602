"""The deterministic synthetic ``markets`` equities research database and its generator."""
