"""Session ids: random and signed, so they cannot be guessed and a forged one is refused."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from app.encoding import b64url

_RANDOM_BYTES = 18
_TAG_BYTES = 12


def new_session_id(secret: str) -> str:
    """A fresh id: 144 random bits, then a 96-bit HMAC tag of them under ``secret``."""
    nonce = b64url(secrets.token_bytes(_RANDOM_BYTES))
    return f"{nonce}.{_tag(nonce, secret)}"


def is_valid_session_id(session_id: str, secret: str) -> bool:
    """Whether ``session_id`` was made by ``new_session_id`` with this secret (any text is safe:
    a non-ASCII id is simply not one, never an error)."""
    if (
        not isinstance(session_id, str)
        or len(session_id) > 64
        or not session_id.isascii()
        or session_id.count(".") != 1
    ):
        return False
    nonce, tag = session_id.split(".")
    return len(nonce) == 24 and hmac.compare_digest(tag, _tag(nonce, secret))


def _tag(nonce: str, secret: str) -> str:
    digest = hmac.new(secret.encode(), nonce.encode(), hashlib.sha256).digest()
    return b64url(digest[:_TAG_BYTES])
