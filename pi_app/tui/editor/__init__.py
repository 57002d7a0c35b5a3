"""The prompt editor: a headless buffer model and its Textual widget."""
