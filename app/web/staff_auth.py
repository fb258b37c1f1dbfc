"""Staff sign-in: scrypt password hashes and HMAC-signed session cookies, as pure functions.

A hash reads ``scrypt$n$r$p$salt_b64$hash_b64``; a cookie reads ``user_b64.expiry.tag_b64``,
the tag an HMAC-SHA256 of the rest under the service's secret key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
_KEY_BYTES, _SALT_BYTES = 32, 16
_MAX_N, _MAX_R, _MAX_P = 2**17, 16, 16  # refuse stored parameters that would eat the machine
_MAXMEM = 256 * 1024 * 1024
_COOKIE_CONTEXT = b"shopdesk-staff-session:"  # keeps these tags apart from session-id tags


def hash_password(password: str, *, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    """A new salted scrypt hash of ``password``, in the stored text form."""
    if not password:
        raise ValueError("the password is empty")
    salt = secrets.token_bytes(_SALT_BYTES)
    key = _scrypt(password, salt, n, r, p, _KEY_BYTES)
    return f"scrypt${n}${r}${p}${_b64(salt)}${_b64(key)}"


def is_password_hash(stored: str) -> bool:
    """Whether ``stored`` is a hash this module can verify against."""
    return _parse(stored) is not None


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches ``stored``, compared in constant time (False if malformed)."""
    parsed = _parse(stored)
    if parsed is None:
        return False
    n, r, p, salt, expected = parsed
    actual = _scrypt(password, salt, n, r, p, len(expected))
    return hmac.compare_digest(actual, expected)


def sign_session(user: str, *, secret: str, expires_at: int) -> str:
    """The cookie value that proves ``user`` signed in, valid until ``expires_at`` (Unix time)."""
    payload = f"{_b64(user.encode())}.{int(expires_at)}"
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
        return _unb64(user_b64).decode()
    except ValueError:  # bad base64 or not UTF-8
        return None


def _parse(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt" or not all(x.isdigit() for x in parts[1:4]):
        return None
    n, r, p = (int(x) for x in parts[1:4])
    if n < 2 or n & (n - 1) or n > _MAX_N or not 1 <= r <= _MAX_R or not 1 <= p <= _MAX_P:
        return None
    try:
        salt, key = _unb64(parts[4]), _unb64(parts[5])
    except ValueError:
        return None
    return (n, r, p, salt, key) if salt and len(key) >= 16 else None


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=length)


def _tag(payload: str, secret: str) -> str:
    digest = hmac.new(secret.encode(), _COOKIE_CONTEXT + payload.encode(), hashlib.sha256)
    return _b64(digest.digest())


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
