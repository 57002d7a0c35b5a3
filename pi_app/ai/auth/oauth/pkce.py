"""PKCE verifier and S256 challenge (R-AI-58). The verifier lives only in memory."""

from __future__ import annotations

import base64
import hashlib
import secrets


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def generate_pkce() -> tuple[str, str]:
    """(verifier, challenge): base64url of 32 random bytes and of its SHA-256, without padding."""
    verifier = _b64url(secrets.token_bytes(32))
    return verifier, pkce_challenge(verifier)


def pkce_challenge(verifier: str) -> str:
    return _b64url(hashlib.sha256(verifier.encode("ascii")).digest())
