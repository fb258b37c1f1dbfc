from __future__ import annotations

from app.chat.session_ids import is_valid_session_id, new_session_id


def test_ids_are_unique_signed_and_forgeries_fail() -> None:
    ids = {new_session_id("s3cret") for _ in range(1000)}
    assert len(ids) == 1000
    one = next(iter(ids))
    assert is_valid_session_id(one, "s3cret")
    assert not is_valid_session_id(one, "other-secret")
    nonce, tag = one.split(".")
    assert not is_valid_session_id(f"{nonce}.{tag[:-1]}A", "s3cret")
    assert not is_valid_session_id(f"{nonce[:-1]}x.{tag}", "s3cret")
    for junk in ("", "abc", "a.b.c", "x" * 200, f"{nonce}."):
        assert not is_valid_session_id(junk, "s3cret")
