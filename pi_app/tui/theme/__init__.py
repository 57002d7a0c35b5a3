"""Themes in the app (pi theme files to Textual themes, switching, hot reload) and file watching."""
