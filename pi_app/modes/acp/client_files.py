"""File access through the editor: the ``read``, ``write`` and ``edit`` tools' back ends in ACP mode.

When the client says it can (``clientCapabilities.fs``), reads go through ``fs/read_text_file`` and
writes through ``fs/write_text_file``, so the model sees the editor's unsaved buffers and the editor
records the change (undo, dirty markers) instead of finding the file changed under it. What the
protocol cannot carry stays local: images and other binary files are read from disk, and the
existence checks (``access``) look at the disk, where the editor's files live too.
"""

from __future__ import annotations

import mimetypes

from acp.interfaces import Client

from pi_app.coding.tools.edit import LocalEditOperations
from pi_app.coding.tools.read import LocalReadOperations
from pi_app.coding.tools.write import LocalWriteOperations


def _is_binary(path: str) -> bool:
    kind, _ = mimetypes.guess_type(path)
    return kind is not None and not kind.startswith("text/") and kind not in ("application/json",)


class ClientFiles:
    """The editor's file methods for one ACP session; ``can_read``/``can_write`` from its capabilities."""

    def __init__(self, client: Client, session_id: str, *, can_read: bool, can_write: bool) -> None:
        self.client = client
        self.session_id = session_id
        self.can_read = can_read
        self.can_write = can_write

    async def read_bytes(self, absolute_path: str) -> bytes:
        if not self.can_read or _is_binary(absolute_path):
            with open(absolute_path, "rb") as handle:
                return handle.read()
        response = await self.client.read_text_file(session_id=self.session_id, path=absolute_path)
        return response.content.encode("utf-8", "surrogatepass")

    async def write_text(self, absolute_path: str, content: str) -> bool:
        """Write through the editor; False when it cannot (the caller writes locally)."""
        if not self.can_write:
            return False
        await self.client.write_text_file(session_id=self.session_id, path=absolute_path, content=content)
        return True


class ClientReadOperations(LocalReadOperations):
    def __init__(self, files: ClientFiles) -> None:
        self.files = files

    async def read_file(self, absolute_path: str) -> bytes:  # type: ignore[override]  # async: the tools await either
        return await self.files.read_bytes(absolute_path)


class ClientWriteOperations(LocalWriteOperations):
    def __init__(self, files: ClientFiles) -> None:
        self.files = files

    async def write_file(self, absolute_path: str, content: str) -> None:  # type: ignore[override]  # async: the tools await either
        if not await self.files.write_text(absolute_path, content):
            super().write_file(absolute_path, content)


class ClientEditOperations(LocalEditOperations):
    """Reads and writes through the editor. No on-disk fingerprint: the editor's buffer, not the
    disk, is the file being edited, and it changes only through this call's own write."""

    fingerprint = None  # type: ignore[assignment]  # none: see the docstring

    def __init__(self, files: ClientFiles) -> None:
        self.files = files

    async def read_file(self, absolute_path: str) -> bytes:  # type: ignore[override]  # async: the tools await either
        return await self.files.read_bytes(absolute_path)

    async def write_file(self, absolute_path: str, content: str) -> None:  # type: ignore[override]  # async: the tools await either
        if not await self.files.write_text(absolute_path, content):
            super().write_file(absolute_path, content)
