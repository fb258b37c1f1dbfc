"""What a shopper may send: checked before anything else runs, with a message they can act on."""

from __future__ import annotations

import unicodedata

from app.errors import InvalidMessageError

# Formatting characters a keyboard or a paste produces legitimately.
_ALLOWED_CONTROLS = {"\n", "\t", "\r"}


def clean_message(text: str, *, max_chars: int) -> str:
    """The message as the assistant will read it, or InvalidMessageError saying what is wrong."""
    if not isinstance(text, str):
        raise InvalidMessageError("Please type a question as text.")
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").strip()
    if not text:
        raise InvalidMessageError("Your message is empty. What can I help you with?")
    if len(text) > max_chars:
        raise InvalidMessageError(
            f"Your message is {len(text):,} characters long; please keep it under "
            f"{max_chars:,} characters, or split it into shorter questions."
        )
    bad = [
        c for c in text if unicodedata.category(c) in ("Cc", "Cs") and c not in _ALLOWED_CONTROLS
    ]
    if bad:
        raise InvalidMessageError(
            "Your message contains characters I can't read (control characters); please retype it."
        )
    return text


def _unreadable(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cs") and char not in _ALLOWED_CONTROLS
