"""What a shopper may send: checked before anything else runs, with a message they can act on."""

from __future__ import annotations

import unicodedata

from app.errors import InvalidMessageError

# Formatting characters a keyboard or a paste produces legitimately.
_ALLOWED_CONTROLS = {"\n", "\t", "\r"}
_EMPTY = "Your message is empty. What can I help you with?"


def clean_message(text: str, *, max_chars: int) -> str:
    """The message as the assistant will read it, or InvalidMessageError saying what is wrong."""
    if not isinstance(text, str):
        raise InvalidMessageError("Please type a question as text.")
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").strip()
    if not text:
        raise InvalidMessageError(_EMPTY)
    if len(text) > max_chars:
        raise _too_long(len(text), max_chars)
    if any(_unreadable(c) for c in text):
        raise InvalidMessageError(
            "Your message contains characters I can't read (control characters); please retype it."
        )
    if not any(_visible(c) for c in text):  # only invisible marks, such as zero-width spaces
        raise InvalidMessageError(_EMPTY)
    return text


def readable_text(text: str) -> str:
    """``text`` unchanged when it holds no control characters or lone surrogates (which no
    database column takes); otherwise ValueError saying so. For comments and reasons."""
    if any(_unreadable(c) for c in text):
        raise ValueError("contains characters that can't be read (control characters)")
    return text


def _too_long(length: int, max_chars: int) -> InvalidMessageError:
    return InvalidMessageError(
        f"Your message is {length:,} characters long; please keep it under "
        f"{max_chars:,} characters, or split it into shorter questions."
    )


def _visible(char: str) -> bool:
    """A letter, digit, punctuation mark or symbol (not a space, control or format mark)."""
    return unicodedata.category(char)[0] in "LNPS"


def _unreadable(char: str) -> bool:
    """Control characters and lone surrogates (which cannot even be stored as UTF-8)."""
    return unicodedata.category(char) in ("Cc", "Cs") and char not in _ALLOWED_CONTROLS
