"""``ListCursor``: the selection and scroll window every flat selector list shares.

Headless: a count, a selected index and a page size. Up/Down wrap or clamp (a flag), page moves
clamp, and the window keeps the selection centred, which is how pi's lists scroll.
"""

from __future__ import annotations


class ListCursor:
    def __init__(self, count: int = 0, page_size: int = 10, selected: int = 0, wrap: bool = True) -> None:
        self.count = count
        self.page_size = max(1, page_size)
        self.wrap = wrap
        self.selected = 0
        self.select(selected)

    def set_count(self, count: int) -> None:
        """The list changed length; the selection is clamped into it."""
        self.count = count
        self.select(self.selected)

    def select(self, index: int) -> None:
        self.selected = max(0, min(index, self.count - 1)) if self.count else 0

    def move(self, delta: int) -> None:
        if not self.count:
            return
        target = self.selected + delta
        self.selected = target % self.count if self.wrap else max(0, min(target, self.count - 1))

    def page(self, direction: int) -> None:
        if self.count:
            self.select(self.selected + direction * self.page_size)

    def apply(self, action: str) -> bool:
        """Move for one of the ``tui.select.*`` movement actions; False for any other action."""
        if action == "tui.select.up":
            self.move(-1)
        elif action == "tui.select.down":
            self.move(1)
        elif action == "tui.select.pageUp":
            self.page(-1)
        elif action == "tui.select.pageDown":
            self.page(1)
        else:
            return False
        return True

    def window(self) -> tuple[int, int]:
        """``[start, end)`` of the rows on screen."""
        start = max(0, min(self.selected - self.page_size // 2, self.count - self.page_size))
        return start, min(start + self.page_size, self.count)

    @property
    def scrolls(self) -> bool:
        return self.count > self.page_size
