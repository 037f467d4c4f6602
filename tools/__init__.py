"""The agent's worker tools, their shared contract (:mod:`tools.base`) and their registry."""
