"""Password hashes: salted scrypt, stored as text, verified in constant time (pure functions).

A hash reads ``scrypt$n$r$p$salt_b64$hash_b64``. Used by the settings (a configured hash must
be one) and by the staff sign-in (``app.web``), so it depends on neither.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from app.encoding import b64url, unb64url

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
_KEY_BYTES, _SALT_BYTES = 32, 16
_MAX_N, _MAX_R, _MAX_P = 2**17, 16, 16  # refuse stored parameters that would eat the machine
_MAXMEM = 256 * 1024 * 1024


def hash_password(password: str, *, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    """A new salted scrypt hash of ``password``, in the stored text form."""
    if not password:
        raise ValueError("the password is empty")
    salt = secrets.token_bytes(_SALT_BYTES)
    key = _scrypt(password, salt, n, r, p, _KEY_BYTES)
    return f"scrypt${n}${r}${p}${b64url(salt)}${b64url(key)}"


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


def _parse(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt" or not all(x.isdigit() for x in parts[1:4]):
        return None
    n, r, p = (int(x) for x in parts[1:4])
    if n < 2 or n & (n - 1) or n > _MAX_N or not 1 <= r <= _MAX_R or not 1 <= p <= _MAX_P:
        return None
    try:
        salt, key = unb64url(parts[4]), unb64url(parts[5])
    except ValueError:
        return None
    return (n, r, p, salt, key) if salt and len(key) >= 16 else None


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=length)
