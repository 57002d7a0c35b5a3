"""The app's chrome around the conversation: start-up header, footer, status line, changelog, farewell."""
