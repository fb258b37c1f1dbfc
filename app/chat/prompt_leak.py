"""Spotting the hidden system prompt, or its secret canary, inside an answer.

The generator is small and repeats what it was shown when asked cleverly, so the prompt itself
is the thing to look for: a per-deployment canary planted in it, and any substantial verbatim
run of its text. Both are matched on normalised views (case, spacing, punctuation, look-alike
letters removed; reversed and ROT13 forms; consonants only, for "replace the vowels"; base64
runs decoded), so re-spacing or re-casing a leak does not get it past.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from app.chat.textnorm import decoded_base64, rot13, skeleton, squeeze

CANARY_PREFIX = "fhc-"


def new_canary() -> str:
    """A fresh random canary: meaningless, so it can only appear in an answer by a leak."""
    return CANARY_PREFIX + secrets.token_hex(10)


class PromptLeakDetector:
    """What a leak looks like, computed once from the system prompt and its canary.

    A leak is the canary (or half of it), a verbatim run of at least ``min_run`` normalised
    characters of the prompt (about eight words), or several shorter runs adding up to twice
    that. Shorter shared phrases ("a member of the support team") are ordinary answers.
    """

    def __init__(self, system_prompt: str, canary: str, *, shingle: int = 20, min_run: int = 48):
        if squeeze(canary) not in squeeze(system_prompt):
            raise ValueError("the canary must be part of the system prompt it protects")
        plain = squeeze(system_prompt)
        consonants = skeleton(plain)
        secret = squeeze(canary)
        self.shingle = shingle
        self.min_run = min_run
        self.skeleton_shingle = max(8, shingle * 3 // 5)
        self.skeleton_min_run = min_run * 3 // 5
        self.canary_window = max(8, len(secret) // 2)
        self.skeleton_canary_window = max(6, len(skeleton(secret)) // 2)
        self.plain_shingles = _shingles([plain, rot13(plain), plain[::-1]], shingle)
        self.skeleton_shingles = _shingles([consonants, consonants[::-1]], self.skeleton_shingle)
        self.canary_windows = _shingles([secret, rot13(secret), secret[::-1]], self.canary_window)
        self.skeleton_canary_windows = _shingles(
            [skeleton(secret), skeleton(secret)[::-1]], self.skeleton_canary_window
        )

    @property
    def hold_chars(self) -> int:
        """Normalised characters to hold back so that a leak is seen before any of it is sent."""
        return max(self.min_run, self.skeleton_min_run * 5 // 3, self.canary_window) + 16

    def scanner(self) -> LeakScanner:
        return LeakScanner(self)

    def leaked(self, text: str) -> bool:
        """Whether a finished text leaks (the streaming path uses ``scanner``)."""
        return self.scanner()(text, True) is not None

    def leaks_plainly(self, plain: str) -> bool:
        """The plain-view test alone, for text recovered from an encoding."""
        coverage = _Coverage(self.plain_shingles, self.shingle)
        return (
            coverage.extend(plain) >= self.min_run
            or coverage.total >= 2 * self.min_run
            or _contains_any(plain, self.canary_windows, self.canary_window)
        )


class LeakScanner:
    """Checks one growing answer; each call looks only at what is new since the last."""

    REASON = "system_prompt_leak"

    def __init__(self, detector: PromptLeakDetector) -> None:
        self._d = detector
        self._plain = _Coverage(detector.plain_shingles, detector.shingle)
        self._skeleton = _Coverage(detector.skeleton_shingles, detector.skeleton_shingle)

    def __call__(self, text: str, final: bool) -> str | None:
        d = self._d
        plain = squeeze(text)
        consonants = skeleton(plain)
        if (
            self._plain.extend(plain) >= d.min_run
            or self._plain.total >= 2 * d.min_run
            or self._skeleton.extend(consonants) >= d.skeleton_min_run
            or self._skeleton.total >= 2 * d.skeleton_min_run
            or _contains_any(plain, d.canary_windows, d.canary_window)
            or _contains_any(consonants, d.skeleton_canary_windows, d.skeleton_canary_window)
        ):
            return self.REASON
        if any(d.leaks_plainly(squeeze(hidden)) for hidden in decoded_base64(text)):
            return self.REASON
        return None


class _Coverage:
    """Which characters of a growing view fall inside a shingle of the prompt."""

    def __init__(self, shingles: frozenset[str], k: int) -> None:
        self._shingles = shingles
        self._k = k
        self._covered = bytearray()
        self._scanned = 0  # shingle start positions already looked up

    @property
    def total(self) -> int:
        return self._covered.count(1)

    def extend(self, view: str) -> int:
        """Mark the view's new shingles; return the longest covered run so far."""
        k = self._k
        if len(view) > len(self._covered):
            self._covered.extend(bytes(len(view) - len(self._covered)))
        start = max(0, min(self._scanned, len(view) - k))
        for i in range(start, len(view) - k + 1):
            if view[i : i + k] in self._shingles:
                self._covered[i : i + k] = b"\x01" * k
        self._scanned = max(self._scanned, len(view) - k + 1)
        return max(map(len, self._covered.split(b"\x00")), default=0)


def _shingles(texts: Iterable[str], k: int) -> frozenset[str]:
    return frozenset(t[i : i + k] for t in texts for i in range(len(t) - k + 1))


def _contains_any(view: str, windows: frozenset[str], k: int) -> bool:
    return any(view[i : i + k] in windows for i in range(len(view) - k + 1))
