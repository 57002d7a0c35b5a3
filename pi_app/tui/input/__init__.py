"""Keys: Textual key events to pi key ids, the user's keybindings, typed text, and who gets the focus back."""
