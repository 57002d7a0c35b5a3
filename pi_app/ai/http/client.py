"""The HTTP client pi's providers send with: httpx's defaults, with the TLS trust store read only when TLS is used.

``httpx.AsyncClient()`` builds an SSL context and parses the whole CA bundle (certifi, or
``SSL_CERT_FILE`` / ``SSL_CERT_DIR``) as it is created, even when every request goes to a plain
``http://`` server such as a local model; on a busy machine that is tens of milliseconds of
``pi -p``'s start-up. ``new_http_client`` instead gives httpx a ``DeferredTrustContext``: set up
as ``ssl.create_default_context`` sets up httpx's default context (certificate and host name
verification on), but reading the trust store just before its first TLS connection.

Verification is never skipped: every way a TLS connection starts from a context
(``wrap_socket``, ``wrap_bio``) loads the store first, and a failure to load it fails that
connection. Each client has its own context, and the trust store comes from the same place httpx
would take it (the environment is read when the store is loaded, not when the client is built).
Proxies from the environment, timeouts and every other client default stay httpx's own; the
connections themselves are made on plain asyncio (``pi_app.ai.http.asyncio_backend``), not anyio.
"""

from __future__ import annotations

import os
import ssl
import sys
import threading
from typing import Any

import httpx


class DeferredTrustContext(ssl.SSLContext):
    """A client ``SSLContext`` that loads its CA certificates just before its first use."""

    def __new__(cls, trust_env: bool = True) -> DeferredTrustContext:
        return super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)

    def __init__(self, trust_env: bool = True) -> None:
        # As ssl.create_default_context(): PROTOCOL_TLS_CLIENT already requires a certificate and
        # checks the host name; the strict-chain flags (Python 3.13+) and the key log file are
        # honoured the same way.
        self._trust_env = trust_env
        self._trust_lock = threading.Lock()
        self._trust_loaded = False
        if sys.version_info >= (3, 13):
            self.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
        keylog = os.environ.get("SSLKEYLOGFILE")
        if keylog and not sys.flags.ignore_environment:
            self.keylog_filename = keylog

    @property
    def trust_loaded(self) -> bool:
        return self._trust_loaded

    def load_trust(self) -> None:
        """Read the CA certificates as httpx would (``SSL_CERT_FILE``, ``SSL_CERT_DIR``, else certifi)."""
        if self._trust_loaded:
            return
        with self._trust_lock:
            if self._trust_loaded:
                return
            if self._trust_env and os.environ.get("SSL_CERT_FILE"):
                self.load_verify_locations(cafile=os.environ["SSL_CERT_FILE"])
            elif self._trust_env and os.environ.get("SSL_CERT_DIR"):
                self.load_verify_locations(capath=os.environ["SSL_CERT_DIR"])
            else:
                import certifi

                self.load_verify_locations(cafile=certifi.where())
            self._trust_loaded = True

    # Every TLS connection, and every view of the store, starts from one of these.

    def wrap_socket(self, *args: Any, **kwargs: Any) -> Any:
        self.load_trust()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> Any:
        self.load_trust()
        return super().wrap_bio(*args, **kwargs)

    def get_ca_certs(self, *args: Any, **kwargs: Any) -> Any:
        self.load_trust()
        return super().get_ca_certs(*args, **kwargs)

    def cert_store_stats(self) -> Any:
        self.load_trust()
        return super().cert_store_stats()


def new_http_client(**kwargs: Any) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` with httpx's defaults, verifying TLS through a ``DeferredTrustContext``,
    connecting through ``AsyncioBackend``.

    An explicit ``verify`` (a context, or ``False`` for a caller that asked for it) is passed through.
    """
    from pi_app.ai.http.asyncio_backend import use_asyncio_backend

    kwargs.setdefault("verify", DeferredTrustContext(kwargs.get("trust_env", True)))
    return use_asyncio_backend(httpx.AsyncClient(**kwargs))
