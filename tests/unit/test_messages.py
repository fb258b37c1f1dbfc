"""Any text at all gets either a clean message or a sentence saying what to change."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.chat.messages import clean_message
from app.errors import InvalidMessageError


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=[]), max_size=300))
def test_every_text_is_cleaned_or_refused_in_words(text: str) -> None:
    try:
        cleaned = clean_message(text, max_chars=200)
    except InvalidMessageError as exc:
        assert str(exc).endswith((".", "?"))
        return
    assert 0 < len(cleaned) <= 200 and cleaned == cleaned.strip()
    assert all(unicodedata.category(c) not in ("Cc", "Cs") or c in "\n\t\r" for c in cleaned)
    cleaned.encode("utf-8")  # storable: no lone surrogates


@pytest.mark.parametrize(
    "text", ["\u200b\u200b", "\u200d", "\u202e\u2066", " \u00a0\u3000 ", "\ufeff"]
)
def test_invisible_marks_alone_are_an_empty_message(text: str) -> None:
    with pytest.raises(InvalidMessageError, match="empty"):
        clean_message(text, max_chars=100)


@pytest.mark.parametrize(
    "text",
    [
        "Do you ship to Zürich? 🇨🇭",
        "شحن إلى دبي؟",
        "配送は何日かかりますか",
        "Size 42\u200d👩\u200d👩\u200d👧",
        "e\u0301\u0301\u0301 combining marks",
        "\U0001f600" * 50,
    ],
)
def test_other_scripts_emoji_and_marks_are_accepted(text: str) -> None:
    assert clean_message(text, max_chars=200)


def test_a_nul_byte_is_refused_as_a_control_character() -> None:
    with pytest.raises(InvalidMessageError, match="control characters"):
        clean_message("\x00", max_chars=100)


def test_comments_and_reasons_must_be_storable_text() -> None:
    from app.chat.messages import readable_text

    assert readable_text("Parcel lost\n— twice! 📦") == "Parcel lost\n— twice! 📦"
    for bad in ("nul\x00here", "bell\x07", "lone \ud800"):
        with pytest.raises(ValueError, match="control characters"):
            readable_text(bad)
