"""The shop's vocabulary: in how many of the served passages each word stem occurs.

A question's rare words carry what it is about ("hire", "hydrostatic", "extended"); its common
ones ("order", "delivery") could be about anything. Answerability weighs the question's words by
how rare they are in the shop's pages, so evidence that holds only its common words does not
count as an answer. Built once per served index version, with the sets of alternatives the
pages list in brackets ("(alkaline, lithium or NiMH)"), which tell a figure stated for one case
from another (`app.chat.conditions`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

from app.chat.conditions import alternatives
from app.chat.evidence import STEM, stem, stems
from app.chat.places import Places
from app.index.passage import Passage


class Vocabulary:
    def __init__(self, passages: Iterable[Passage]) -> None:
        counts: Counter[str] = Counter()
        words: set[str] = set()
        figures: set[str] = set()
        texts: list[str] = []
        named: list[str] = []
        titled: set[str] = set()
        for passage in passages:
            if passage.kind == "product":
                titled.update(_WORD.findall(passage.title.lower()))
            counts.update(stems(f"{passage.title} {passage.section} {passage.text}"))
            words.update(_WORD.findall(f"{passage.title} {passage.section} {passage.text}".lower()))
            figures.update(_FIGURE.findall(f"{passage.title} {passage.text}"))
            texts.append(passage.text)
            named.append(f"{passage.title} {passage.section} {passage.text}")
        self._counts = counts
        self._words = frozenset(words)
        self._figures = frozenset(figures)
        self._titled = frozenset(titled)
        self._size = len(texts)
        # each word stem the pages list with others as alternatives, mapped to those others
        self.alternatives = alternatives(texts)
        # the places the pages name, and the region they name for those they do not
        self.places = Places(named)
        # the hyphenated words of the pages with a part that is one letter or holds a figure,
        # by their parts ("r value": "r-value", "usb c", "3 season"), which the pages never
        # write apart: a lone letter is no word of its own
        flat = re.sub(r"\s+", " ", " ".join(named).lower())
        self._flat = f" {' '.join(_WORD.findall(flat))} "  # the pages' words in order
        spaced = {
            w.replace("-", " ")
            for t in named
            for w in _HYPHENATED.findall(t.lower())
            if _SHORT_PART.search(w) and w.replace("-", " ") not in flat
        }
        alternation = "|".join(
            re.escape(w).replace(r"\ ", r"\s+") for w in sorted(spaced, key=len, reverse=True)
        )
        self._spaced = (
            re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])", re.I) if spaced else None
        )

    def hyphenated(self, text: str) -> str:
        """``text`` with the parts of a hyphenated word of the pages written apart joined as
        the pages write it: "airloft r value?" → "airloft r-value?"."""
        if self._spaced is None:
            return text
        return self._spaced.sub(lambda m: re.sub(r"\s+", "-", m.group(0).lower()), text)

    def knows(self, stem: str) -> bool:
        """Whether any passage holds ``stem``."""
        return stem in self._counts

    def holds(self, word: str) -> bool:
        """Whether the pages hold ``word`` itself (or it without a plural's "s"): a name is
        known by its whole spelling, not its stem ("Clearpay" is no "ClearFlow")."""
        return word in self._words or (word.endswith("s") and word[:-1] in self._words)

    def holds_phrase(self, words: str) -> bool:
        """Whether the pages hold ``words`` (lower case), one word as `holds` reads it, more
        than one in that order ("customer support")."""
        found = _WORD.findall(words)
        if len(found) == 1:
            return self.holds(found[0])
        return bool(found) and f" {' '.join(found)} " in self._flat

    def titles_hold(self, word: str) -> bool:
        """Whether a product's name holds ``word`` (lower case): "battery" of the "Beacon 400
        Rechargeable Battery Pack"."""
        return word in self._titled

    def holds_figure(self, digits: str) -> bool:
        """Whether the pages hold ``digits`` as a whole run of digits ("10000" of the PowerCell
        10000), not only inside a longer one."""
        return digits in self._figures

    def spelled(self, word: str) -> str:
        """The stem of ``word`` as the shop's pages spell it: its own when the pages hold it or
        the word itself; else, for a word its stem cuts ("retrun"), the stem of the words a
        single slip away that the pages hold (a letter dropped, added, changed or two swapped:
        "return" → "retur") when they agree on one; for a word no longer than a stem, the one
        stem of the pages a slip away ("diff" → "diffe"); else its own. A long word's slip is
        looked for in the whole word: "wheelchair" is no slip of "heel", though "wheel" is."""
        own = stem(word)
        if own in self._counts or word in self._words or len(word) < 4:
            return own
        if len(word) <= STEM:
            near = {c for c in _one_slip(own) if c in self._counts}
        else:
            near = {stem(w) for w in _one_slip(word) if w in self._words}
        return near.pop() if len(near) == 1 else own

    def weight(self, stem: str) -> float:
        """How telling ``stem`` is: its inverse document frequency, highest for a word no passage
        holds."""
        return math.log((self._size + 1) / (self._counts.get(stem, 0) + 1)) + 1.0


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_WORD = re.compile(r"[a-z]+")
_FIGURE = re.compile(r"\d+")
_SHORT_PART = re.compile(r"(?:^|-)(?:[a-z]|[a-z]*\d[a-z0-9]*)(?=-|$)")
# a hyphenated word, not a web address's ("help@fernhill-outfitters.example")
_HYPHENATED = re.compile(r"(?<![\w@.-])[a-z0-9]+(?:-[a-z0-9]+)+(?![\w-]|\.\w)")


def _one_slip(word: str) -> set[str]:
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {a + b[1:] for a, b in splits if b}
        | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
        | {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
        | {a + c + b for a, b in splits for c in _LETTERS}
    )
