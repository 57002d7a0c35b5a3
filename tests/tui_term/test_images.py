"""Inline images (R-IMG-01…04, D-39): Kitty placeholders, half-block cells, text placeholder."""

from __future__ import annotations

import base64
import io
import re
import unicodedata

from PIL import Image

from pi_app.ai.types import ImageContent
from pi_app.tui.terminal.images import (
    DIACRITICS,
    PLACEHOLDER,
    UPPER_HALF,
    ImageData,
    ImageRenderer,
    fit_cells,
    image_part,
)
from pi_app.tui.transcript.blocks import FALLBACK_DARK


def png(width: int, height: int, colour: tuple[int, int, int] = (255, 0, 0)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def content(data: bytes, mime: str = "image/png") -> ImageContent:
    return ImageContent(data=base64.b64encode(data).decode(), mime_type=mime)


def test_diacritics_table_is_kittys_row_column_table() -> None:
    assert len(DIACRITICS) == 297
    assert DIACRITICS[0] == "\u0305" and DIACRITICS[-1] == "\U0001d244"
    assert all(unicodedata.combining(d) == 230 and not unicodedata.decomposition(d) for d in DIACRITICS)
    assert list(DIACRITICS) == sorted(DIACRITICS)


def test_sizes_follow_the_cell_geometry() -> None:
    assert fit_cells((900, 900), 100) == (60, 30)  # max 60 columns, square pixels -> half the rows
    assert fit_cells((900, 900), 30) == (28, 14)  # width - 2
    assert fit_cells((18, 18), 100) == (2, 1)  # small images are not blown up
    assert fit_cells(None, 100) == (60, 23)  # unknown size: 800x600 assumed
    assert fit_cells((100, 1), 100)[1] == 1


def test_half_block_cells_carry_the_picture_colours() -> None:
    part = image_part(content(png(90, 36, (0, 128, 255))), ImageRenderer("cells"))
    strips = part.render(40, FALLBACK_DARK)
    assert len(strips) == 2 and all(s.cell_length == 10 for s in strips)
    cells = [seg for strip in strips for seg in strip if seg.text]
    assert all(set(seg.text) == {UPPER_HALF} for seg in cells)
    colour = cells[0].style.color.get_truecolor()
    assert (colour.red, colour.green, colour.blue) == (0, 128, 255)


def test_kitty_mode_transmits_once_and_renders_placeholders() -> None:
    sent: list[str] = []
    renderer = ImageRenderer("kitty", write=sent.append)
    part = image_part(content(png(3000, 1000)), renderer)
    strips = part.render(50, FALLBACK_DARK)
    part.render(50, FALLBACK_DARK)
    assert len(sent) == 1
    commands = re.findall(r"\x1b_G([^;]*);([^\x1b]*)\x1b\\", sent[0])
    first = dict(kv.split("=") for kv in commands[0][0].split(","))
    assert first["a"] == "T" and first["U"] == "1" and first["f"] == "100" and first["q"] == "2"
    cols, rows = int(first["c"]), int(first["r"])
    assert (cols, rows) == (48, 8) and len(strips) == rows
    assert all(len(chunk) <= 4096 for _, chunk in commands)
    assert [dict(kv.split("=") for kv in c.split(","))["m"] for c, _ in commands][-1] == "0"
    sent_png = base64.b64decode("".join(chunk for _, chunk in commands))
    assert Image.open(io.BytesIO(sent_png)).size == (cols * 9, 144)  # downscaled with Pillow
    image_id = int(first["i"])
    row = strips[1].text
    assert row.count(PLACEHOLDER) == cols and row[1] == DIACRITICS[1] and row[2] == DIACRITICS[0]
    colour = strips[0]._segments[0].style.color.get_truecolor()
    assert (colour.red << 16 | colour.green << 8 | colour.blue) == image_id & 0xFFFFFF
    part.render(30, FALLBACK_DARK)  # a new width is a new placement: old image deleted first
    assert sent[1] == f"\x1b_Ga=d,d=I,i={image_id},q=2\x1b\\" and sent[2].startswith("\x1b_Ga=T")
    part.dispose()
    assert sent[-1].startswith("\x1b_Ga=d,d=I")


def test_undecodable_or_disabled_images_become_a_text_placeholder() -> None:
    broken = image_part(ImageData(b"not an image", "image/png", "/tmp/shot.png"), ImageRenderer("kitty"))
    assert [s.text for s in broken.render(80, FALLBACK_DARK)] == ["[Image: shot.png [image/png]]"]
    off = image_part(content(png(40, 20)), ImageRenderer("text"))
    assert [s.text for s in off.render(80, FALLBACK_DARK)] == ["[Image: [image/png] 40x20]"]
    no_renderer = image_part(content(png(40, 20)), None)
    assert no_renderer.render(80, FALLBACK_DARK)[0].text.startswith("[Image:")


def test_kitty_without_a_driver_falls_back_to_cells() -> None:
    part = image_part(content(png(20, 20)), ImageRenderer("kitty", write=None))
    assert UPPER_HALF in part.render(80, FALLBACK_DARK)[0].text


def test_clipboard_image_is_saved_as_a_temp_file(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """R-IMG-05: Ctrl+V reads the clipboard with the platform tool and keeps the picture."""
    from pi_app.tui.terminal.images import save_clipboard_image

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    picture = tmp_path / "clip.png"
    picture.write_bytes(png(4, 4))
    tool = bin_dir / "wl-paste"
    tool.write_text(f"#!/bin/sh\nexec /bin/cat {picture}\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    saved = save_clipboard_image(str(tmp_path))
    assert saved is not None and saved.endswith(".png") and "pi-clipboard-" in saved
    assert open(saved, "rb").read() == picture.read_bytes()
    tool.write_text("#!/bin/sh\necho just text\n")
    assert save_clipboard_image(str(tmp_path)) is None  # no image: silently nothing
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert save_clipboard_image(str(tmp_path)) is None  # no tool: silently nothing
