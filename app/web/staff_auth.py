"""Staff sessions: HMAC-signed cookies, as pure functions (password hashes: ``app.passwords``).

A cookie reads ``user_b64.expiry.tag_b64``, the tag an HMAC-SHA256 of the rest under the
service's secret key.
"""

from __future__ import annotations

import hashlib
import hmac

from app.encoding import b64url, unb64url

_COOKIE_CONTEXT = b"shopdesk-staff-session:"  # keeps these tags apart from session-id tags


def sign_session(user: str, *, secret: str, expires_at: int) -> str:
    """The cookie value that proves ``user`` signed in, valid until ``expires_at`` (Unix time)."""
    payload = f"{b64url(user.encode())}.{int(expires_at)}"
    return f"{payload}.{_tag(payload, secret)}"


def read_session(value: str | None, *, secret: str, now: float) -> str | None:
    """The signed-in user a cookie names, or ``None`` when it is missing, forged or expired."""
    if not value or len(value) > 512 or not value.isascii() or value.count(".") != 2:
        return None
    user_b64, expiry, tag = value.split(".")
    if not hmac.compare_digest(tag, _tag(f"{user_b64}.{expiry}", secret)):
        return None
    if not expiry.isdigit() or int(expiry) <= now:
        return None
    try:
        return unb64url(user_b64).decode()
    except ValueError:  # bad base64 or not UTF-8
        return None


def _tag(payload: str, secret: str) -> str:
    digest = hmac.new(secret.encode(), _COOKIE_CONTEXT + payload.encode(), hashlib.sha256)
    return b64url(digest.digest())
