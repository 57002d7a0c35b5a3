"""The conversation transcript: the scroll view, its blocks, search, tool-call ids, stored-message rendering."""
