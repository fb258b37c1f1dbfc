"""Staff sign-in: scrypt hashes verify only the right password; cookies refuse forgery and age."""

from __future__ import annotations

import base64

import pytest

from app.passwords import hash_password, is_password_hash, verify_password
from app.settings import DEV_STAFF_PASSWORD_HASH, Settings
from app.web.staff_auth import read_session, sign_session

SECRET = "a-test-secret-that-is-long-enough"
NOW = 1_700_000_000


def test_a_hash_verifies_its_password_and_no_other() -> None:
    stored = hash_password("correct horse battery staple")
    kind, n, r, p, salt, key = stored.split("$")
    assert len(base64.urlsafe_b64decode(key + "=")) == 32
    assert (kind, n, r, p) == ("scrypt", "16384", "8", "1")
    assert len(base64.urlsafe_b64decode(salt + "==")) == 16
    assert verify_password("correct horse battery staple", stored)
    assert not verify_password("correct horse battery stapl", stored)
    assert not verify_password("", stored)


def test_each_hash_has_its_own_salt() -> None:
    first, second = hash_password("same password"), hash_password("same password")
    assert first != second
    assert verify_password("same password", first) and verify_password("same password", second)


def test_the_development_default_is_the_documented_password() -> None:
    assert verify_password("shopdesk-staff", DEV_STAFF_PASSWORD_HASH)
    assert not verify_password("shopdesk-staf", DEV_STAFF_PASSWORD_HASH)


@pytest.mark.parametrize(
    "stored",
    [
        "",
        "plaintext-password",
        "bcrypt$16384$8$1$c2FsdA$a2V5",
        "scrypt$16384$8$1$!!!$???",
        "scrypt$1000$8$1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5",  # n not a power of two
        "scrypt$1073741824$8$1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5",  # n too costly
        "scrypt$16384$8$1$$a2V5a2V5a2V5a2V5a2V5a2V5",  # no salt
    ],
)
def test_a_malformed_hash_matches_nothing(stored: str) -> None:
    assert not is_password_hash(stored)
    assert not verify_password("anything", stored)


def test_empty_password_cannot_be_hashed() -> None:
    with pytest.raises(ValueError):
        hash_password("")


def test_a_signed_cookie_names_its_user_until_it_expires() -> None:
    cookie = sign_session("staff", secret=SECRET, expires_at=NOW + 3600)
    assert read_session(cookie, secret=SECRET, now=NOW) == "staff"
    assert read_session(cookie, secret=SECRET, now=NOW + 3599) == "staff"
    assert read_session(cookie, secret=SECRET, now=NOW + 3600) is None
    assert read_session(cookie, secret=SECRET, now=NOW + 86_400) is None


def test_a_tampered_cookie_is_refused() -> None:
    cookie = sign_session("staff", secret=SECRET, expires_at=NOW + 3600)
    user, expiry, tag = cookie.split(".")
    admin = base64.urlsafe_b64encode(b"admin").decode().rstrip("=")
    forged = [
        f"{admin}.{expiry}.{tag}",  # another user
        f"{user}.{int(expiry) + 86_400}.{tag}",  # a later expiry
        f"{user}.{expiry}.{tag[:-1]}{'B' if tag.endswith('A') else 'A'}",  # a changed tag
        f"{user}.{expiry}.",
        f"{user}.{expiry}",
        "",
        "staff",
        f"{user}.{expiry}.{tag}é",
        "x" * 1000,
    ]
    for value in forged:
        assert read_session(value, secret=SECRET, now=NOW) is None, value
    assert read_session(None, secret=SECRET, now=NOW) is None


def test_a_cookie_signed_with_another_secret_is_refused() -> None:
    cookie = sign_session("staff", secret="another-secret", expires_at=NOW + 3600)
    assert read_session(cookie, secret=SECRET, now=NOW) is None


def test_a_session_id_signature_is_no_staff_cookie() -> None:
    from app.chat.session_ids import new_session_id

    assert read_session(new_session_id(SECRET), secret=SECRET, now=NOW) is None


def test_user_names_round_trip_through_the_cookie() -> None:
    for name in ("staff", "Zoë Ångström", "a.b.c", "x" * 100):
        cookie = sign_session(name, secret=SECRET, expires_at=NOW + 60)
        assert read_session(cookie, secret=SECRET, now=NOW) == name


def test_production_refuses_the_default_staff_password() -> None:
    with pytest.raises(ValueError, match="SHOPDESK_STAFF_PASSWORD_HASH"):
        Settings(mode="production", secret_key="s" * 40, _env_file=None)  # type: ignore[call-arg]
    own = hash_password("a real staff password")
    settings = Settings(
        mode="production",
        secret_key="s" * 40,
        staff_password_hash=own,
        _env_file=None,  # type: ignore[call-arg]
    )
    assert verify_password("a real staff password", settings.staff_password_hash)


@pytest.mark.parametrize(
    "stored",
    [
        "shopdesk-staff",
        "scrypt$1000$8$1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5",  # the shape, but n is no power of 2
    ],
)
def test_a_setting_that_is_no_hash_is_refused(stored: str) -> None:
    with pytest.raises(ValueError, match="hash-password"):
        Settings(staff_password_hash=stored, _env_file=None)  # type: ignore[call-arg]
