"""Core services shared by every layer: settings, chat models per role and the local LLM server."""
