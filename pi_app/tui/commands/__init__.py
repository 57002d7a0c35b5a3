"""Slash commands and key actions: the registry, the built-in commands, and what each action does."""
