"""The bridge between the Textual app and the session running on its own loop."""
