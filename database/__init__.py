"""Database access: guarded read-only queries, schema reading, profiling, masking, joins, descriptions."""
