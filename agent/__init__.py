"""The ReWOO agent: its graph, nodes, state, plan types, conversation memory and the ``ask`` entry point."""
