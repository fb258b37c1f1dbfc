"""Unpadded base64url text, the form of every token and hash the service hands out: session ids,
staff cookies and password hashes (pure functions)."""

from __future__ import annotations

import base64


def b64url(raw: bytes) -> str:
    """``raw`` as base64url without ``=`` padding: safe in URLs, cookies and ``$``-joined text."""
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    """The bytes ``b64url`` made ``text`` from; ``ValueError`` (``binascii.Error``) if it is not
    base64url."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
