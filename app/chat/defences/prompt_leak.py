"""Spotting the hidden system prompt, or its secret canary, inside an answer.

The generator is small and repeats what it was shown, so the prompt itself is the thing to
look for: a per-deployment canary planted in it, and any substantial verbatim run of its text.
Both are matched on normalised views (case, spacing, punctuation and look-alike letters
removed; reversed and ROT13 forms; consonants only, for "replace the vowels"; base64 runs
decoded), so re-spacing or re-casing a leak does not get it past.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable

from app.chat.defences.disguises import decoded_base64, fold_char, rot13, skeleton, squeeze
from app.chat.defences.findings import Finding

CANARY_PREFIX = "fhc-"
LEAK = "system_prompt_leak"
_VOWELS = frozenset("aeiouy")


def new_canary() -> str:
    """A fresh random canary: meaningless, so it can only appear in an answer by a leak."""
    return CANARY_PREFIX + secrets.token_hex(10)


class PromptLeakDetector:
    """What a leak looks like, computed once from the system prompt and its canary.

    A leak is the canary (or half of it), one verbatim run of at least ``min_run`` normalised
    characters of the prompt (about a dozen words), or runs reproducing ``min_spread``
    characters of it in all. Shorter shared phrases ("a member of the support team", said
    once or many times) are ordinary answers.
    """

    def __init__(
        self,
        system_prompt: str,
        canary: str,
        *,
        shingle: int = 20,
        min_run: int = 64,
        min_spread: int = 96,
    ) -> None:
        plain, secret = squeeze(system_prompt), squeeze(canary)
        if len(secret) < 12 or secret not in plain:
            raise ValueError("the canary must be part of the system prompt it protects")
        consonants = skeleton(plain)
        self.shingle, self.min_run, self.min_spread = shingle, min_run, min_spread
        self.skeleton_shingle = shingle * 3 // 5
        self.skeleton_min_run, self.skeleton_min_spread = min_run * 3 // 5, min_spread * 3 // 5
        self.canary_window = max(8, len(secret) // 2)
        self.skeleton_canary_window = max(6, len(skeleton(secret)) // 2)
        self.plain_shingles = _located([plain, rot13(plain), plain[::-1]], shingle)
        self.skeleton_shingles = _located([consonants, consonants[::-1]], self.skeleton_shingle)
        self.canary_windows = frozenset(
            _located([secret, rot13(secret), secret[::-1]], self.canary_window)
        )
        self.skeleton_canary_windows = frozenset(
            _located([skeleton(secret), skeleton(secret)[::-1]], self.skeleton_canary_window)
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


class LeakScanner:
    """Checks one growing answer; each call reads only the characters added since the last."""

    def __init__(self, detector: PromptLeakDetector) -> None:
        d = detector
        self._d = d
        self._read = 0
        self._plain = _View(d.plain_shingles, d.shingle, d.canary_windows, d.canary_window)
        self._skeleton = _View(
            d.skeleton_shingles,
            d.skeleton_shingle,
            d.skeleton_canary_windows,
            d.skeleton_canary_window,
        )

    def __call__(self, text: str, final: bool) -> Finding | None:
        d = self._d
        for position in range(self._read, len(text)):
            for char in fold_char(text[position]):
                if char.isalnum():
                    self._plain.add(char, position)
                    if char not in _VOWELS:
                        self._skeleton.add(char, position)
        self._read = len(text)
        start = self._plain.leak_start(d.min_run, d.min_spread)
        if start is None:
            start = self._skeleton.leak_start(d.skeleton_min_run, d.skeleton_min_spread)
        if start is not None:
            return Finding(LEAK, start)
        for where, hidden in decoded_base64(text):
            if self._d.leaked(hidden):
                return Finding(LEAK, where)
        return None


class _View:
    """One normalised view of a growing answer, and which of its characters copy the prompt."""

    def __init__(
        self, shingles: dict[str, tuple[int, int]], k: int, canary: frozenset[str], canary_k: int
    ) -> None:
        self._shingles, self._k = shingles, k
        self._canary, self._canary_k = canary, canary_k
        self._chars: list[str] = []
        self._positions: list[int] = []  # where in the answer each character came from
        self._covered = bytearray()
        self._reproduced: set[tuple[int, int]] = set()  # prompt characters copied, each once
        self._canary_at: int | None = None

    def add(self, char: str, position: int) -> None:
        self._chars.append(char)
        self._positions.append(position)
        self._covered.append(0)
        n = len(self._chars)
        if n >= self._k:
            located = self._shingles.get("".join(self._chars[n - self._k :]))
            if located is not None:
                self._covered[n - self._k :] = b"\x01" * self._k
                form, start = located
                self._reproduced.update((form, i) for i in range(start, start + self._k))
        tail = "".join(self._chars[n - self._canary_k :])
        if self._canary_at is None and n >= self._canary_k and tail in self._canary:
            self._canary_at = self._positions[n - self._canary_k]

    def leak_start(self, min_run: int, min_spread: int) -> int | None:
        """Where the leak begins in the answer, or None while there is none."""
        if self._canary_at is not None:
            return self._canary_at
        runs = list(re.finditer(rb"\x01+", self._covered))
        longest = max(runs, key=lambda m: m.end() - m.start(), default=None)
        if longest is not None and longest.end() - longest.start() >= min_run:
            return self._positions[longest.start()]
        if runs and len(self._reproduced) >= min_spread:
            return self._positions[runs[0].start()]
        return None


def _located(texts: Iterable[str], k: int) -> dict[str, tuple[int, int]]:
    """Every ``k``-character piece of each text, with (which text, where) it first occurs."""
    pieces: dict[str, tuple[int, int]] = {}
    for form, text in enumerate(texts):
        for i in range(len(text) - k + 1):
            pieces.setdefault(text[i : i + k], (form, i))
    return pieces
