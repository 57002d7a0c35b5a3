"""The read tool (spec 50 §3.5, scenarios 1-9 and 31)."""

from __future__ import annotations

import base64
import io
import os
import re
from types import SimpleNamespace

import pytest
from PIL import Image

from pi_app.ai.types import ImageContent, Model
from pi_app.coding.tools import create_read_tool
from tests.tools.conftest import aborted_signal, run_tool, text_of


def write(cwd: str, name: str, data: str | bytes) -> str:
    path = os.path.join(cwd, name)
    with open(path, "wb") as handle:
        handle.write(data.encode() if isinstance(data, str) else data)
    return path


def png_bytes(width: int, height: int, mode: str = "RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, (width, height), "red").save(out, format="PNG")
    return out.getvalue()


async def read(cwd: str, **params):
    return await run_tool(create_read_tool(cwd), params)


async def test_read_fits(cwd):
    write(cwd, "a.txt", "Hello, world!\nLine 2\nLine 3")
    result = await read(cwd, path="a.txt")
    assert text_of(result) == "Hello, world!\nLine 2\nLine 3"
    assert result.details is None
    assert "Use offset=" not in text_of(result)


async def test_read_line_limit(cwd):
    write(cwd, "big.txt", "\n".join(f"Line {i}" for i in range(1, 2501)))
    result = await read(cwd, path="big.txt")
    text = text_of(result)
    assert "Line 2000" in text and "Line 2001" not in text
    assert text.endswith("[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")
    truncation = result.details["truncation"]
    assert truncation["truncatedBy"] == "lines"
    assert (truncation["totalLines"], truncation["outputLines"]) == (2500, 2000)


async def test_read_byte_limit(cwd):
    write(cwd, "wide.txt", "\n".join(f"Line {i}: " + "x" * 200 for i in range(1, 501)))
    text = text_of(await read(cwd, path="wide.txt"))
    match = re.search(
        r"\[Showing lines 1-(\d+) of 500 \(50\.0KB limit\)\. Use offset=(\d+) to continue\.\]$", text
    )
    assert match, text[-200:]
    shown = int(match.group(1))
    assert int(match.group(2)) == shown + 1
    assert f"Line {shown}: " in text and f"Line {shown + 1}: " not in text


async def test_read_offset_and_limit(cwd):
    write(cwd, "h.txt", "\n".join(f"Line {i}" for i in range(1, 101)))
    text = text_of(await read(cwd, path="h.txt", offset=41, limit=20))
    assert (
        text.startswith("Line 41\n")
        and "Line 60" in text
        and "Line 61" not in text
        and "Line 40\n" not in text
    )
    assert text.endswith("[40 more lines in file. Use offset=61 to continue.]")
    text = text_of(await read(cwd, path="h.txt", limit=10))
    assert text.endswith("[90 more lines in file. Use offset=11 to continue.]")
    result = await read(cwd, path="h.txt", offset=51)
    assert text_of(result).startswith("Line 51\n") and text_of(result).endswith("Line 100")
    assert result.details is None


async def test_read_offset_beyond_end(cwd):
    write(cwd, "s.txt", "a\nb\nc")
    with pytest.raises(Exception, match=r"^Offset 100 is beyond end of file \(3 lines total\)$"):
        await read(cwd, path="s.txt", offset=100)


async def test_read_invalid_limit(cwd):
    write(cwd, "s.txt", "a\nb\nc")
    with pytest.raises(Exception, match="Invalid limit: must be at least 1"):
        await read(cwd, path="s.txt", limit=0)


async def test_read_long_first_line(cwd):
    write(cwd, "a.txt", "y" * 60000)
    result = await read(cwd, path="a.txt")
    assert text_of(result) == (
        "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' 'a.txt' | head -c 51200]"
    )
    assert result.details["truncation"]["firstLineExceedsLimit"] is True


async def test_read_image_by_magic_not_extension(cwd):
    write(cwd, "image.txt", png_bytes(1, 1))
    write(cwd, "x.png", "plain text in a png name")
    result = await read(cwd, path="image.txt")
    assert "Read image file [image/png]" in result.content[0].text
    image = result.content[1]
    assert isinstance(image, ImageContent) and image.mime_type == "image/png" and image.data
    assert text_of(await read(cwd, path="x.png")) == "plain text in a png name"


async def test_read_large_image_is_resized(cwd):
    write(cwd, "big.png", png_bytes(4000, 1000))
    result = await read(cwd, path="big.png")
    lines = result.content[0].text.split("\n")
    assert lines[1] == (
        "[Image: original 4000x1000, displayed at 2000x500. "
        "Multiply coordinates by 2.00 to map to original image.]"
    )
    decoded = Image.open(io.BytesIO(base64.b64decode(result.content[1].data)))
    assert decoded.size[0] <= 2000


async def test_read_image_follows_the_model_input_limits(cwd):
    # pi 1.6.0 models.json inputLimits.images.resize: the model's own profile replaces 2000x2000
    write(cwd, "big.png", png_bytes(1600, 400))
    limits = {
        "images": {"resize": {"maxWidth": 800, "maxHeight": 800, "maxBytes": 524288, "jpegQuality": 75}}
    }
    ctx = SimpleNamespace(model=Model(id="m", input=["text", "image"], input_limits=limits))
    result = await run_tool(create_read_tool(cwd), {"path": "big.png"}, ctx=ctx)
    assert (
        result.content[0].text.split("\n")[1].startswith("[Image: original 1600x400, displayed at 800x200.")
    )
    assert Image.open(io.BytesIO(base64.b64decode(result.content[1].data))).size == (800, 200)
    assert len(result.content[1].data) <= 524288
    # without limits the same image is within the defaults and keeps its bytes
    plain = await read(cwd, path="big.png")
    assert len(plain.content[0].text.split("\n")) == 1


async def test_read_image_without_resize_keeps_bytes(cwd):
    data = png_bytes(3000, 10)
    write(cwd, "wide.png", data)
    result = await run_tool(create_read_tool(cwd, auto_resize_images=False), {"path": "wide.png"})
    assert base64.b64decode(result.content[1].data) == data


async def test_read_bmp_converted_to_png(cwd):
    out = io.BytesIO()
    Image.new("RGB", (4, 4), "blue").save(out, format="BMP")
    write(cwd, "pic.bmp", out.getvalue())
    result = await read(cwd, path="pic.bmp")
    assert result.content[0].text.startswith("Read image file [image/png]")
    assert base64.b64decode(result.content[1].data).startswith(b"\x89PNG")


async def test_read_image_notes_model_without_vision(cwd):
    write(cwd, "p.png", png_bytes(2, 2))
    ctx = SimpleNamespace(model=Model(id="m", input=["text"]))
    result = await run_tool(create_read_tool(cwd), {"path": "p.png"}, ctx=ctx)
    assert "[Current model does not support images." in result.content[0].text
    vision = SimpleNamespace(model=Model(id="m", input=["text", "image"]))
    result = await run_tool(create_read_tool(cwd), {"path": "p.png"}, ctx=vision)
    assert "does not support images" not in result.content[0].text


async def test_read_missing_file(cwd):
    with pytest.raises(Exception) as info:
        await read(cwd, path="nope.txt")
    assert "ENOENT" in str(info.value) and "nope.txt" in str(info.value)


async def test_read_directory_is_an_error(cwd):
    os.mkdir(os.path.join(cwd, "d"))
    with pytest.raises(Exception, match="EISDIR"):
        await read(cwd, path="d")


async def test_read_binary_file_refused_with_notice(cwd):
    write(cwd, "blob.bin", b"\x00\x01\x02garbage" * 10)
    result = await read(cwd, path="blob.bin")
    assert text_of(result) == (
        "[Binary file blob.bin (100B) not shown. Use bash (e.g. file, xxd, strings) to inspect it.]"
    )


async def test_read_aborted(cwd):
    write(cwd, "a.txt", "x")
    with pytest.raises(Exception, match="^Operation aborted$"):
        await run_tool(create_read_tool(cwd), {"path": "a.txt"}, signal=aborted_signal())


async def test_read_through_custom_async_operations(cwd):
    class Remote:
        async def read_file(self, path):
            return b"remote:" + path.encode()

        async def access(self, path):
            return None

    result = await run_tool(create_read_tool("/srv", Remote()), {"path": "f.txt"})
    assert text_of(result) == "remote:/srv/f.txt"


async def test_image_that_cannot_fit_is_omitted(cwd, monkeypatch):
    import pi_app.coding.tools.images as images

    monkeypatch.setattr(images, "MAX_IMAGE_BYTES", 10)  # nothing can be encoded this small
    write(cwd, "big.png", png_bytes(300, 300))
    result = await read(cwd, path="big.png")
    assert len(result.content) == 1
    assert result.content[0].text == (
        "Read image file [image/png]\n"
        "[Image omitted: could not be resized below the inline image size limit.]"
    )


async def test_undecodable_small_image_passes_through(cwd):
    data = b"\x89PNG\r\n\x1a\n" + b"not really png data"
    write(cwd, "broken.png", data)
    result = await read(cwd, path="broken.png")
    assert base64.b64decode(result.content[1].data) == data


async def test_noisy_transparent_image_falls_back_to_jpeg(cwd, monkeypatch):
    import pi_app.coding.tools.images as images

    monkeypatch.setattr(images, "MAX_IMAGE_BYTES", 150_000)
    out = io.BytesIO()
    Image.effect_noise((2400, 240), 90).convert("RGBA").save(out, format="PNG")
    write(cwd, "noise.png", out.getvalue())
    result = await read(cwd, path="noise.png")
    image = result.content[1]
    data = base64.b64decode(image.data)
    decoded = Image.open(io.BytesIO(data))
    assert image.mime_type == "image/jpeg" and decoded.format == "JPEG" and decoded.mode == "RGB"
    assert decoded.size[0] <= 2000 and len(data) <= 150_000
    assert "displayed at" in result.content[0].text
