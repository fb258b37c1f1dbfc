"""The output guard: an answer reaches the shopper only as far as every check has cleared it.

The answer streams, so the guard holds back its last ``hold_chars`` normalised characters (and
any word still arriving): a leak or a planted link is recognised from its first few dozen
characters, before any of them has been sent. When a check fires, nothing more of the answer
is released and the shopper gets a polite refusal instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from app.chat.answer_checks import GroundedContent
from app.chat.prompt_leak import LeakScanner, PromptLeakDetector

LEAK_REFUSAL = (
    "I'm sorry, I can't share that. I'm {shop}'s customer-service assistant: I'm happy to help "
    "with our products, sizes, delivery, returns and orders."
)
UNGROUNDED_REFUSAL = (
    "I'm sorry, I couldn't put together a reliable answer to that from our help pages. Would "
    "you like me to connect you with a member of our support team?"
)


class Check(Protocol):
    def __call__(self, text: str, final: bool) -> str | None:
        """Why ``text`` (the answer so far) must not be shown, or None; ``final`` at the end."""
        ...


class AnswerGuard:
    """Filters one streamed answer: ``feed`` each delta, send what it returns, then ``finish``."""

    def __init__(self, checks: Sequence[Check], *, hold_chars: int) -> None:
        self._checks = checks
        self._hold = hold_chars
        self._text = ""
        self._released = 0
        self.blocked: str | None = None

    def feed(self, delta: str) -> str:
        """The part of the answer that is now safe to send (often empty)."""
        if self.blocked is not None:
            return ""
        self._text += delta
        if self._check(final=False):
            return ""
        return self._release(_release_point(self._text, self._hold))

    def finish(self) -> str:
        """The rest of the answer, once the whole of it has been checked."""
        if self.blocked is not None or self._check(final=True):
            return ""
        return self._release(len(self._text))

    def _check(self, *, final: bool) -> bool:
        for check in self._checks:
            reason = check(self._text, final)
            if reason is not None:
                self.blocked = reason
                return True
        return False

    def _release(self, upto: int) -> str:
        if upto <= self._released:
            return ""
        out = self._text[self._released : upto]
        self._released = upto
        return out


def refusal(reason: str, *, shop: str) -> str:
    """What the shopper reads instead of a withheld answer."""
    if reason == LeakScanner.REASON:
        return LEAK_REFUSAL.format(shop=shop)
    return UNGROUNDED_REFUSAL


def answer_guard(detector: PromptLeakDetector, *, allowed: str) -> AnswerGuard:
    """The guard of one turn: no prompt leak, nothing the turn's sources do not support."""
    return AnswerGuard(
        [detector.scanner(), GroundedContent(allowed)], hold_chars=detector.hold_chars
    )


def _release_point(text: str, hold: int) -> int:
    """Where the held-back tail begins: ``hold`` letters or digits back, never mid-word."""
    cut = len(text)
    counted = 0
    while cut > 0 and counted < hold:
        cut -= 1
        if text[cut].isalnum():
            counted += 1
    while cut > 0 and not text[cut - 1].isspace():
        cut -= 1
    return cut
