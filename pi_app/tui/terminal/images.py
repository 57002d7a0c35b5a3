"""Inline images in the transcript: Kitty graphics, half-block cells, or a text placeholder.

The fallback ladder (00-index.md, decision D-39; spec 60 R-IMG-01…04):

1. ``kitty`` — terminals that answered the Kitty graphics query *and* draw Unicode placeholders
   (kitty, Ghostty). The image is downscaled with Pillow to the cell box, sent once out of band
   through the driver (PNG, base64 in 4096-character chunks, ``a=T,U=1,q=2``), and the block
   renders ``rows × cols`` placeholder cells (U+10EEEE plus row/column diacritics, foreground
   colour = image id). The cells are ordinary text, so Textual's compositor, scrolling and
   overlays keep working. A new size (resize) means a new image id; old ids are deleted
   (``a=d,d=I``) when their block leaves the transcript.
2. ``cells`` — everything else with colour, tmux included: each cell is ``▀`` whose foreground is
   the upper pixel and background the lower pixel of a Pillow-downscaled copy. Safe anywhere.
3. ``text`` — images off, no colour, or undecodable data: ``[Image: name [mime] WxH]`` in dim.

Why not textual-image: it writes escapes straight to ``sys.__stdout__`` from inside rendering
(racing Textual's writer thread, which owns the terminal) and probes the terminal at import time;
here every byte goes through the driver and probing happens once before the app starts
(``pi_app/tui/terminal/probe.py``). iTerm2's inline-image protocol is not used (D-39): it cannot be
expressed as cells.

Sizes (R-IMG-03): columns = min(width - 2, ``max_width_cells`` 60); rows =
ceil(height × (cols × cell width px / image width) / cell height px), at least 1; cell pixels come
from the ``CSI 16 t`` reply (default 9×18); unreadable dimensions assume 800×600.
"""

from __future__ import annotations

import base64
import io
import logging
import math
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from pi_app.tui.transcript.blocks.theme import BlockTheme, fg

if TYPE_CHECKING:
    from pi_app.ai.types import ImageContent

log = logging.getLogger(__name__)

ImageMode = Literal["kitty", "cells", "text"]

MAX_WIDTH_CELLS = 60
DEFAULT_CELL_SIZE = (9, 18)
ASSUMED_SIZE = (800, 600)
KITTY_CHUNK = 4096
PLACEHOLDER = "\U0010eeee"
UPPER_HALF = "▀"

# Kitty's row/column diacritics: the combining characters of class 230 in Unicode 6.0 that have no
# decomposition, in code point order; entry n encodes the number n.
_DIACRITIC_RANGES = (
    "305 30D-30E 310 312 33D-33F 346 34A-34C 350-352 357 35B 363-36F 483-487 592-595 597-599 "
    "59C-5A1 5A8-5A9 5AB-5AC 5AF 5C4 610-617 657-65B 65D-65E 6D6-6DC 6DF-6E2 6E4 6E7-6E8 6EB-6EC "
    "730 732-733 735-736 73A 73D 73F-741 743 745 747 749-74A 7EB-7F1 7F3 816-819 81B-823 825-827 "
    "829-82D 951 953-954 F82-F83 F86-F87 135D-135F 17DD 193A 1A17 1A75-1A7C 1B6B 1B6D-1B73 "
    "1CD0-1CD2 1CDA-1CDB 1CE0 1DC0-1DC1 1DC3-1DC9 1DCB-1DCC 1DD1-1DE6 1DFE 20D0-20D1 20D4-20D7 "
    "20DB-20DC 20E1 20E7 20E9 20F0 2CEF-2CF1 2DE0-2DFF A66F A67C-A67D A6F0-A6F1 A8E0-A8F1 AAB0 "
    "AAB2-AAB3 AAB7-AAB8 AABE-AABF AAC1 FE20-FE26 10A0F 10A38 1D185-1D189 1D1AA-1D1AD 1D242-1D244"
)


def _expand_ranges(spec: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in spec.split():
        first, _, last = part.partition("-")
        out.extend(chr(c) for c in range(int(first, 16), int(last or first, 16) + 1))
    return tuple(out)


DIACRITICS = _expand_ranges(_DIACRITIC_RANGES)
MAX_PLACEHOLDER_CELLS = len(DIACRITICS)


# -- image data ---------------------------------------------------------------------------------


@dataclass
class ImageData:
    """Raw image bytes with what is known about them."""

    data: bytes
    mime_type: str = "image/png"
    filename: str | None = None

    @classmethod
    def from_content(cls, content: ImageContent | dict[str, Any]) -> ImageData:
        """From an ``ImageContent`` (base64 ``data`` + ``mime_type``) or a dict in wire shape."""
        if isinstance(content, dict):
            raw, mime = content.get("data", ""), content.get("mimeType", "image/png")
        else:
            raw, mime = getattr(content, "data", ""), getattr(content, "mime_type", "image/png")
        try:
            data = base64.b64decode(raw, validate=False)
        except (ValueError, TypeError):
            data = b""
        filename = None
        extra = getattr(content, "extra", None)
        if isinstance(extra, dict):
            filename = extra.get("filename") or extra.get("path")
        return cls(data, mime, filename)

    @classmethod
    def from_path(cls, path: str) -> ImageData:
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        mime = {"jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}.get(
            ext, "image/png"
        )
        with open(path, "rb") as handle:
            return cls(handle.read(), mime, os.path.basename(path))


def _open(data: bytes) -> Any:
    """A decoded Pillow image, or None when the bytes are not a readable image."""
    from PIL import Image

    try:
        image = Image.open(io.BytesIO(data))
        image.load()
        return image
    except Exception:
        return None


def fit_cells(
    image_size: tuple[int, int] | None,
    width: int,
    cell_size: tuple[int, int] = DEFAULT_CELL_SIZE,
    max_width_cells: int = MAX_WIDTH_CELLS,
) -> tuple[int, int]:
    """(columns, rows) an image occupies for a block of ``width`` cells (R-IMG-03)."""
    image_w, image_h = image_size or ASSUMED_SIZE
    image_w, image_h = max(1, image_w), max(1, image_h)
    cell_w, cell_h = max(1, cell_size[0]), max(1, cell_size[1])
    cols = max(1, min(width - 2, max_width_cells))
    cols = min(cols, max(1, math.ceil(image_w / cell_w)))  # never upscale past the native size
    rows = max(1, -(-image_h * cols * cell_w // (image_w * cell_h)))  # exact integer ceil
    return cols, rows


def text_placeholder(image: ImageData, size: tuple[int, int] | None) -> str:
    """``[Image: <filename> [<mime>] <W>x<H>]`` with the parts that are known (R-IMG-01)."""
    parts = ["Image:"]
    if image.filename:
        parts.append(os.path.basename(image.filename))
    parts.append(f"[{image.mime_type}]")
    if size:
        parts.append(f"{size[0]}x{size[1]}")
    return "[" + " ".join(parts) + "]"


# -- rendering ----------------------------------------------------------------------------------


def half_block_strips(picture: Any, cols: int, rows: int, background: tuple[int, int, int]) -> list[Strip]:
    """``rows`` strips of ``cols`` ``▀`` cells: upper pixel as foreground, lower as background."""
    from PIL import Image

    rgba = picture.convert("RGBA")
    canvas = Image.new("RGBA", rgba.size, (*background, 255))
    canvas.alpha_composite(rgba)
    small = canvas.convert("RGB").resize((cols, rows * 2), Image.Resampling.LANCZOS)
    pixels = small.load()
    assert pixels is not None  # load() gives None only for images without pixel data
    strips: list[Strip] = []
    for row in range(rows):
        segments = []
        for col in range(cols):
            # an RGB image: each pixel is an (r, g, b) tuple
            top = cast(tuple[int, int, int], pixels[col, row * 2])
            bottom = cast(tuple[int, int, int], pixels[col, row * 2 + 1])
            style = Style(color=Color.from_rgb(*top), bgcolor=Color.from_rgb(*bottom))
            segments.append(Segment(UPPER_HALF, style))
        strips.append(Strip(Segment.simplify(segments), cols))
    return strips


def placeholder_strips(image_id: int, cols: int, rows: int) -> list[Strip]:
    """Kitty Unicode-placeholder cells for a virtual placement of ``image_id``."""
    style = Style(color=Color.from_rgb((image_id >> 16) & 255, (image_id >> 8) & 255, image_id & 255))
    high = image_id >> 24
    extra = DIACRITICS[high] if high else ""
    strips = []
    for row in range(rows):
        text = "".join(PLACEHOLDER + DIACRITICS[row] + DIACRITICS[col] + extra for col in range(cols))
        strips.append(Strip([Segment(text, style)], cols))
    return strips


def kitty_transmit(image_id: int, png: bytes, cols: int, rows: int) -> str:
    """The escape sequences that send ``png`` and create a virtual placement of cols × rows."""
    payload = base64.standard_b64encode(png).decode("ascii")
    chunks = [payload[i : i + KITTY_CHUNK] for i in range(0, len(payload), KITTY_CHUNK)] or [""]
    out = []
    for index, chunk in enumerate(chunks):
        more = 1 if index < len(chunks) - 1 else 0
        if index == 0:
            control = f"a=T,U=1,f=100,q=2,i={image_id},c={cols},r={rows},m={more}"
        else:
            control = f"q=2,m={more}"
        out.append(f"\x1b_G{control};{chunk}\x1b\\")
    return "".join(out)


def kitty_delete(image_id: int) -> str:
    """Delete an image and free its data in the terminal (R-IMG-04)."""
    return f"\x1b_Ga=d,d=I,i={image_id},q=2\x1b\\"


class ImageRenderer:
    """Renders image parts for the transcript in one of the three modes of the ladder."""

    def __init__(
        self,
        mode: ImageMode = "cells",
        *,
        write: Callable[[str], None] | None = None,
        cell_size: tuple[int, int] = DEFAULT_CELL_SIZE,
        max_width_cells: int = MAX_WIDTH_CELLS,
    ) -> None:
        self.mode: ImageMode = mode
        self.write = write
        """Raw terminal output (the driver's ``write``); Kitty mode falls back to cells without it."""
        self.cell_size = cell_size
        self.max_width_cells = max_width_cells
        self.version = 0
        """Bumped when the mode or cell size changes; part of every image cache key."""
        self._rng = random.Random()

    def set_cell_size(self, cell_size: tuple[int, int]) -> None:
        if cell_size != self.cell_size and cell_size[0] > 0 and cell_size[1] > 0:
            self.cell_size = cell_size
            self.version += 1

    def set_mode(self, mode: ImageMode) -> None:
        if mode != self.mode:
            self.mode = mode
            self.version += 1

    def effective_mode(self) -> ImageMode:
        if self.mode == "kitty" and self.write is None:
            return "cells"
        return self.mode

    def new_image_id(self) -> int:
        return self._rng.randint(1, 2**32 - 2)

    def send(self, data: str) -> None:
        if self.write is not None:
            self.write(data)

    def part(self, image: ImageData) -> ImagePart:
        return ImagePart(image, self)


class ImagePart:
    """One image inside a block; renders (and caches) its strips per width."""

    def __init__(self, image: ImageData, renderer: ImageRenderer | None) -> None:
        self.image = image
        self.renderer = renderer
        self._picture: Any = None
        self._decoded = False
        self._cache_key: tuple[Any, ...] | None = None
        self._strips: list[Strip] = []
        self._kitty: tuple[int, int, int] | None = None  # (image id, cols, rows) sent to the terminal

    @property
    def picture(self) -> Any:
        if not self._decoded:
            self._decoded = True
            self._picture = _open(self.image.data) if self.image.data else None
        return self._picture

    @property
    def size(self) -> tuple[int, int] | None:
        picture = self.picture
        return (picture.width, picture.height) if picture is not None else None

    def mode(self) -> ImageMode:
        if self.renderer is None or self.picture is None:
            return "text"
        return self.renderer.effective_mode()

    def render(self, width: int, theme: BlockTheme) -> list[Strip]:
        renderer = self.renderer
        key = (width, theme.version, theme.is_light, renderer.version if renderer else -1, self.mode())
        if key == self._cache_key:
            return self._strips
        mode = self.mode()
        try:
            if mode == "text":
                strips = self._text(theme)
            else:
                assert renderer is not None
                cols, rows = fit_cells(self.size, width, renderer.cell_size, renderer.max_width_cells)
                if mode == "kitty" and cols <= MAX_PLACEHOLDER_CELLS and rows <= MAX_PLACEHOLDER_CELLS:
                    strips = self._kitty_strips(cols, rows)
                else:
                    background = (255, 255, 255) if theme.is_light else (0, 0, 0)
                    strips = half_block_strips(self.picture, cols, rows, background)
        except Exception:
            log.exception("rendering image %s failed", self.image.filename or "")
            strips = self._text(theme)
        self._cache_key, self._strips = key, strips
        return strips

    def _text(self, theme: BlockTheme) -> list[Strip]:
        return [Strip([Segment(text_placeholder(self.image, self.size), fg(theme, "dim"))])]

    def _kitty_strips(self, cols: int, rows: int) -> list[Strip]:
        from PIL import Image

        renderer = self.renderer
        assert renderer is not None
        if self._kitty is None or self._kitty[1:] != (cols, rows):
            self.dispose()
            cell_w, cell_h = renderer.cell_size
            box = (cols * cell_w, rows * cell_h)
            picture = self.picture.copy()
            picture.thumbnail(box, Image.Resampling.LANCZOS)
            buffer = io.BytesIO()
            picture.save(buffer, format="PNG")
            image_id = renderer.new_image_id()
            renderer.send(kitty_transmit(image_id, buffer.getvalue(), cols, rows))
            self._kitty = (image_id, cols, rows)
        return placeholder_strips(self._kitty[0], cols, rows)

    def dispose(self) -> None:
        """Free the terminal's copy of the image (Kitty mode)."""
        if self._kitty is not None and self.renderer is not None:
            self.renderer.send(kitty_delete(self._kitty[0]))
        self._kitty = None


def image_part(
    image: ImageData | ImageContent | dict[str, Any] | str, renderer: ImageRenderer | None
) -> ImagePart:
    """An ``ImagePart`` from ``ImageContent``, a wire dict, ``ImageData`` or a file path."""
    if isinstance(image, ImageData):
        data = image
    elif isinstance(image, str):
        try:
            data = ImageData.from_path(image)
        except OSError:
            data = ImageData(b"", "image/png", image)
    else:
        data = ImageData.from_content(image)
    return ImagePart(data, renderer)


# -- clipboard (R-IMG-05) -----------------------------------------------------------------------

_CLIPBOARD_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("wl-paste", "--no-newline", "--type", "image/png"),
    ("xclip", "-selection", "clipboard", "-target", "image/png", "-out"),
    ("pngpaste", "-"),
)


def save_clipboard_image(directory: str | None = None, timeout: float = 3.0) -> str | None:
    """Save an image from the system clipboard as ``pi-clipboard-<uuid>.<ext>``; its path or None.

    Tries the platform tools in turn (``wl-paste``, ``xclip``, ``pngpaste``); any failure — no
    image, no tool, no permission — is silent.
    """
    import shutil
    import subprocess
    import tempfile
    import uuid

    for command in _CLIPBOARD_COMMANDS:
        if shutil.which(command[0]) is None:
            continue
        try:
            data = subprocess.run(command, capture_output=True, timeout=timeout, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        picture = _open(data) if data else None
        if picture is None:
            continue
        ext = {"JPEG": "jpg", "GIF": "gif", "WEBP": "webp"}.get(picture.format or "", "png")
        path = os.path.join(directory or tempfile.gettempdir(), f"pi-clipboard-{uuid.uuid4()}.{ext}")
        try:
            with open(path, "wb") as handle:
                handle.write(data)
        except OSError:
            return None
        return path
    return None
