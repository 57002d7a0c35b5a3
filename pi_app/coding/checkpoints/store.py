"""The checkpoint content store: file contents by SHA-256, zlib-compressed, under the agent dir.

``<agent dir>/checkpoints/objects/<2 hex>/<64 hex>`` holds one version of one file's bytes; the same
content is kept once however many sessions, files or checkpoints refer to it. Objects are written
atomically (a temporary file renamed into place), so a crash leaves either the whole object or none.
A file bigger than ``max_file_bytes`` is not kept: ``put`` returns None and the checkpoint says so.
``gc`` removes the objects no session refers to any more (``pi checkpoints gc``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zlib
from collections.abc import Iterable
from pathlib import Path

DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ContentStore:
    def __init__(self, root: Path, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self.root = root
        self.max_file_bytes = max_file_bytes

    def _path(self, digest: str) -> Path:
        return self.root / "objects" / digest[:2] / digest

    def has(self, digest: str) -> bool:
        return self._path(digest).exists()

    def put(self, data: bytes) -> str | None:
        """Keep ``data``; its digest, or None when it is over the size cap."""
        if len(data) > self.max_file_bytes:
            return None
        digest = digest_of(data)
        target = self._path(digest)
        if target.exists():
            return digest
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(zlib.compress(data, 1))
            os.replace(temp, target)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise
        return digest

    def put_file(self, path: str) -> str | None:
        """Keep the file's current bytes (None: too big to keep). Raises OSError if unreadable."""
        if os.path.getsize(path) > self.max_file_bytes:
            return None
        with open(path, "rb") as handle:
            return self.put(handle.read())

    def get(self, digest: str) -> bytes:
        """The bytes kept under ``digest``; raises ``KeyError`` when the store has lost them."""
        try:
            return zlib.decompress(self._path(digest).read_bytes())
        except (OSError, zlib.error) as exc:
            raise KeyError(digest) from exc

    def gc(self, referenced: Iterable[str]) -> tuple[int, int]:
        """Delete every object not in ``referenced``; returns (objects removed, bytes freed)."""
        keep = set(referenced)
        removed = freed = 0
        objects = self.root / "objects"
        if not objects.is_dir():
            return 0, 0
        for bucket in objects.iterdir():
            if not bucket.is_dir():
                continue
            for item in bucket.iterdir():
                if item.name in keep:
                    continue
                try:
                    size = item.stat().st_size
                    item.unlink()
                except OSError:
                    continue
                removed += 1
                freed += size
        return removed, freed
