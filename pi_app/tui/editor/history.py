"""Prompt history (R-ED-10): submitted texts, newest first, at most 100, no consecutive duplicates."""

from __future__ import annotations

from collections.abc import Iterable

MAX_HISTORY = 100


class PromptHistory:
    def __init__(self, entries: Iterable[str] = (), limit: int = MAX_HISTORY) -> None:
        self.limit = limit
        self._entries: list[str] = []
        for entry in entries:  # oldest first, as they happened
            self.add(entry)

    def add(self, text: str) -> None:
        text = text.strip()
        if not text or (self._entries and self._entries[0] == text):
            return
        self._entries.insert(0, text)
        del self._entries[self.limit :]

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> str:
        return self._entries[index]

    def entries(self) -> list[str]:
        return list(self._entries)
