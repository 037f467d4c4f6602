"""The Streamlit product: chat page, developer panel and settings view (``app.py`` wires them together)."""
