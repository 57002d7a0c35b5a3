"""Image attachments of a prompt are fitted like ``read`` images: into the model's pi 1.6.0
``inputLimits.images.resize`` profile (models.json), keeping an image that already fits."""

from __future__ import annotations

import base64
import io
from dataclasses import replace
from pathlib import Path

from PIL import Image

from pi_app.ai.testing import fake_provider, text
from pi_app.ai.types import ImageContent
from pi_app.coding.models.registry import ModelRegistry
from pi_app.coding.sdk import create_agent_session
from pi_app.coding.session.manager import SessionManager
from pi_app.coding.settings import SettingsManager
from tests.tui.fakes import InMemoryCredentialStore

LIMITS = {"images": {"resize": {"maxWidth": 400, "maxHeight": 400, "maxBytes": 524288, "jpegQuality": 75}}}


def _png(width: int, height: int) -> str:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "red").save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode("ascii")


async def _sent_images(tmp_path: Path, image: str, settings: dict | None = None) -> list[ImageContent]:
    provider = fake_provider(script=[[text("ok")]])
    registry = ModelRegistry(InMemoryCredentialStore(), None)
    registry.models.set_provider(provider)
    model = replace(provider.get_models()[0], input=["text", "image"], input_limits=LIMITS)
    created = await create_agent_session(
        str(tmp_path),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        settings_manager=SettingsManager.in_memory(settings or {}),
        model_registry=registry,
        model=model,
        no_context_files=True,
    )
    await created.session.prompt("look", [ImageContent(data=image, mime_type="image/png")])
    user = provider.calls[0].context.messages[-1]
    return [block for block in user.content if isinstance(block, ImageContent)]


async def test_a_large_attachment_is_fitted_into_the_model_profile(tmp_path: Path) -> None:
    (sent,) = await _sent_images(tmp_path, _png(1200, 600))
    assert Image.open(io.BytesIO(base64.b64decode(sent.data))).size == (400, 200)


async def test_an_attachment_within_the_limits_keeps_its_bytes(tmp_path: Path) -> None:
    small = _png(100, 50)
    (sent,) = await _sent_images(tmp_path, small)
    assert sent.data == small


async def test_auto_resize_off_sends_the_attachment_as_it_is(tmp_path: Path) -> None:
    big = _png(1200, 600)
    (sent,) = await _sent_images(tmp_path, big, {"images": {"autoResize": False}})
    assert sent.data == big
