"""Image sniffing and fitting for ``read`` (spec 50 R-READ-10..17).

The type comes from magic bytes, never from the extension. BMP is always converted to PNG (providers
do not accept it). With auto-resize on, an image is fitted into 2000×2000 px and 4.5 MiB of encoded
bytes: EXIF orientation first; an image already within both limits keeps its original bytes; else it
is scaled (Lanczos) and encoded as PNG and JPEG, the smaller winning, walking down a JPEG quality
ladder and then smaller scale factors until it fits. These functions are synchronous and CPU-bound;
callers run them in a worker thread (``asyncio.to_thread``).

A model's ``inputLimits.images.resize`` (pi 1.6.0 models.json: ``maxWidth``, ``maxHeight``,
``maxBytes`` of the base64 payload, ``jpegQuality``) replaces those defaults; omitted fields keep them.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_IMAGE_DIMENSION = 2000
MAX_IMAGE_BYTES = int(4.5 * 1024 * 1024)
SNIFF_BYTES = 4100
_FIRST_QUALITY = 80
_QUALITY_LADDER = (85, 70, 55, 40)
_SCALE_LADDER = (1.0, 0.75, 0.5, 0.35, 0.25)
_MIN_SIDE = 100


def detect_image_mime_type(head: bytes) -> str | None:
    """The MIME type of a supported image from its first bytes, or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"BM") and len(head) >= 26:
        return "image/bmp"
    return None


@dataclass
class ProcessedImage:
    """``data is None`` means the image could not be brought under the size limit."""

    data: bytes | None
    mime_type: str
    original_size: tuple[int, int] | None = None
    displayed_size: tuple[int, int] | None = None
    converted_from: str | None = None

    @property
    def resized(self) -> bool:
        return (
            self.original_size is not None
            and self.displayed_size is not None
            and self.original_size != self.displayed_size
        )


def _open(data: bytes):  # -> PIL.Image.Image | None
    from PIL import Image, ImageOps

    try:
        image = Image.open(io.BytesIO(data))
        image.load()
        return ImageOps.exif_transpose(image)
    except Exception:
        return None


def _encode_png(image) -> bytes:
    out = io.BytesIO()
    if image.mode not in ("RGB", "RGBA", "L", "LA", "P", "1", "I", "I;16"):
        image = image.convert("RGBA")
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def _flatten_for_jpeg(image):
    from PIL import Image

    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB") if image.mode != "RGB" else image


def _encode_jpeg(flat, quality: int) -> bytes:
    out = io.BytesIO()
    flat.save(out, format="JPEG", quality=quality)
    return out.getvalue()


@dataclass(frozen=True)
class ResizeProfile:
    """The limits an image is fitted into; ``max_bytes`` counts raw bytes."""

    max_width: int = MAX_IMAGE_DIMENSION
    max_height: int = MAX_IMAGE_DIMENSION
    max_bytes: int = MAX_IMAGE_BYTES
    jpeg_quality: int = _FIRST_QUALITY

    @classmethod
    def from_input_limits(cls, input_limits: Mapping[str, Any] | None) -> ResizeProfile:
        """The profile of a model's ``inputLimits`` (``images.resize``), defaults for the rest."""
        images = (input_limits or {}).get("images")
        resize = images.get("resize") if isinstance(images, Mapping) else None
        if not isinstance(resize, Mapping):
            return default_profile()
        base64_bytes = resize.get("maxBytes")
        return cls(
            max_width=int(resize.get("maxWidth") or MAX_IMAGE_DIMENSION),
            max_height=int(resize.get("maxHeight") or MAX_IMAGE_DIMENSION),
            # the file gives the base64 size: 4 characters per 3 bytes
            max_bytes=int(base64_bytes) * 3 // 4 if base64_bytes else MAX_IMAGE_BYTES,
            jpeg_quality=int(resize.get("jpegQuality") or _FIRST_QUALITY),
        )


def default_profile() -> ResizeProfile:
    """The limits without a model profile (read at call time, so tests can lower them)."""
    return ResizeProfile(MAX_IMAGE_DIMENSION, MAX_IMAGE_DIMENSION, MAX_IMAGE_BYTES, _FIRST_QUALITY)


def _fit(width: int, height: int, max_width: int, max_height: int) -> tuple[int, int]:
    scale = min(1.0, max_width / width, max_height / height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def _smallest_encoding(image, size: tuple[int, int], profile: ResizeProfile) -> tuple[bytes, str] | None:
    from PIL import Image

    scaled = image if image.size == size else image.resize(size, Image.Resampling.LANCZOS)
    png = _encode_png(scaled)
    flat = _flatten_for_jpeg(scaled)
    ladder = [profile.jpeg_quality, *(q for q in _QUALITY_LADDER if q < profile.jpeg_quality)]
    for quality in ladder:
        jpeg = _encode_jpeg(flat, quality)
        best = (png, "image/png") if len(png) <= len(jpeg) else (jpeg, "image/jpeg")
        if len(best[0]) <= profile.max_bytes:
            return best
    return None


def _convert_bmp(data: bytes) -> bytes | None:
    image = _open(data)
    return _encode_png(image) if image is not None else None


def process_image(
    data: bytes, mime_type: str, auto_resize: bool = True, profile: ResizeProfile | None = None
) -> ProcessedImage:
    """Convert BMP, then (optionally) fit the image into the inline limits of ``profile``."""
    profile = profile or default_profile()
    converted_from = None
    if mime_type == "image/bmp":
        png = _convert_bmp(data)
        if png is not None:
            data, mime_type, converted_from = png, "image/png", "image/bmp"
    if not auto_resize:
        return ProcessedImage(data, mime_type, converted_from=converted_from)

    image = _open(data)
    if image is None:
        fits = len(data) <= profile.max_bytes
        return ProcessedImage(data if fits else None, mime_type, converted_from=converted_from)
    width, height = image.size
    if width <= profile.max_width and height <= profile.max_height and len(data) <= profile.max_bytes:
        return ProcessedImage(data, mime_type, (width, height), (width, height), converted_from)

    target_w, target_h = _fit(width, height, profile.max_width, profile.max_height)
    for factor in _SCALE_LADDER:
        size = (max(1, round(target_w * factor)), max(1, round(target_h * factor)))
        if factor < 1.0 and (size[0] < _MIN_SIDE or size[1] < _MIN_SIDE):
            break
        encoded = _smallest_encoding(image, size, profile)
        if encoded is not None:
            return ProcessedImage(encoded[0], encoded[1], (width, height), size, converted_from)
    return ProcessedImage(None, mime_type, (width, height), None, converted_from)
