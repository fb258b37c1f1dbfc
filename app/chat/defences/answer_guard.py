"""The output guard: an answer reaches the shopper only as far as every check has cleared it.

The answer streams, so the guard holds back its last ``hold_chars`` normalised characters (and
any word still arriving): a leak or a planted link is recognised from its first few dozen
characters, before any of them has been sent. When a check fires, nothing more is generated or
shown. The sentences before the offending one are kept when they make an answer of their own
("The tent weighs 1,550 g [1]." before a planted link); otherwise the shopper gets a polite
refusal instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.chat.defences.findings import Check, Finding
from app.chat.defences.grounded_content import GroundedContent
from app.chat.defences.prompt_leak import PromptLeakDetector

WITHHELD = (
    "I'm sorry, I can't give a reliable answer to that here. I can help with {shop} products, "
    "sizes, delivery, returns and orders: would you like me to connect you with a member of "
    "our support team?"
)
_SENTENCE_END = re.compile(r"[.!?)\]](?=\s)|\n")
_MIN_KEPT_WORDS = 6


class AnswerGuard:
    """Filters one streamed answer: ``feed`` each delta, send what it returns, then ``finish``.

    After a check fires, ``blocked`` says why and ``kept`` is the part of the answer that may
    stand (possibly empty, meaning the answer is replaced by ``WITHHELD``).
    """

    def __init__(self, checks: Sequence[Check], *, hold_chars: int) -> None:
        self._checks = checks
        self._hold = hold_chars
        self._text = ""
        self._released = 0
        self._finding: Finding | None = None

    @property
    def blocked(self) -> str | None:
        return None if self._finding is None else self._finding.reason

    @property
    def kept(self) -> str:
        """The answer as it may stand: all of it, or after a block the complete sentences before
        the offending text if they say enough ("" when nothing can stand)."""
        if self._finding is None:
            return self._text
        end = self._salvage_end()
        return "" if end is None else self._text[:end]

    def feed(self, delta: str) -> str:
        """The part of the answer that is now safe to send (often empty)."""
        if self._finding is not None:
            return ""
        self._text += delta
        if self._check(final=False):
            return ""
        return self._release(_release_point(self._text, self._hold))

    def finish(self) -> str:
        """The rest of what may be shown, once the whole answer has been checked."""
        if self._finding is None and not self._check(final=True):
            return self._release(len(self._text))
        end = self._salvage_end()
        return "" if end is None else self._release(end)

    def _salvage_end(self) -> int | None:
        assert self._finding is not None
        ends = [m.end() for m in _SENTENCE_END.finditer(self._text, 0, self._finding.start)]
        end = max(max(ends, default=0), self._released)  # what was shown cannot be taken back
        return end if len(self._text[:end].split()) >= _MIN_KEPT_WORDS else None

    def _check(self, *, final: bool) -> bool:
        for check in self._checks:
            finding = check(self._text, final)
            if finding is not None:
                self._finding = finding
                return True
        return False

    def _release(self, upto: int) -> str:
        if upto <= self._released:
            return ""
        out = self._text[self._released : upto]
        self._released = upto
        return out


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
