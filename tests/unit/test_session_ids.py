from __future__ import annotations

from app.chat.session_ids import is_valid_session_id, new_session_id


def _last_changed(text: str) -> str:
    """``text`` with its last character replaced by a different one (never by itself)."""
    return text[:-1] + ("B" if text.endswith("A") else "A")


def test_ids_are_unique_signed_and_forgeries_fail() -> None:
    ids = {new_session_id("s3cret") for _ in range(1000)}
    assert len(ids) == 1000
    one = next(iter(ids))
    assert is_valid_session_id(one, "s3cret")
    assert not is_valid_session_id(one, "other-secret")
    nonce, tag = one.split(".")
    assert not is_valid_session_id(f"{nonce}.{_last_changed(tag)}", "s3cret")
    assert not is_valid_session_id(f"{_last_changed(nonce)}.{tag}", "s3cret")
    for junk in ("", "abc", "a.b.c", "x" * 200, f"{nonce}."):
        assert not is_valid_session_id(junk, "s3cret")


def test_ids_carry_144_random_bits_and_a_96_bit_signature() -> None:
    import base64

    nonce, tag = new_session_id("s3cret").split(".")
    assert len(base64.urlsafe_b64decode(nonce)) * 8 == 144
    assert len(base64.urlsafe_b64decode(tag + "=" * (-len(tag) % 4))) * 8 == 96
    # every character position varies across ids: no fixed or counter-like part
    ids = [new_session_id("s3cret").split(".")[0] for _ in range(400)]
    assert all(len({i[p] for i in ids}) > 20 for p in range(len(nonce)))


def test_any_text_is_simply_not_an_id() -> None:
    one = new_session_id("s3cret")
    nonce, _ = one.split(".")
    for junk in (f"{nonce}.é", f"{nonce}.\x00", "é" * 24 + ".x", f"{nonce}.{'😀' * 16}"):
        assert not is_valid_session_id(junk, "s3cret")
