"""The case a figure is stated for, against the case the shopper asks about.

A shop publishes a figure under a condition: "Battery life: Up to 25 hours (lithium AA); about
18 hours (NiMH)", "Weight: 85 g (filter only)", "110 g including lid", "About 60 minutes on full
power". The right product's line, with the asked field and a high score, still does not answer
a question about another case of it: on alkaline batteries, with the pouch, the lid on its own,
when not on full power. Four ways a question asks for another case, each read lexically from the
question and the line that gives the figure:

- **another alternative**: the line states its figures for bracketed alternatives ("(lithium
  AA)", "(NiMH)") and the question names a word the shop's pages list *with* them as one of a
  set ("alkaline, lithium or NiMH"), which the line does not hold;
- **another scope**: the figure includes something ("including lid", "with a 230 g canister")
  and the question asks for a part alone ("on its own", "without its lid"); or the figure is
  of one part only ("(filter only)", "excluding") and the question asks with something added
  ("together with its pouch", "including");
- **a negated condition**: the question excludes the condition the figure is stated for ("if
  I'm only simmering, not on full power" against "on full power"), or asks it at a low setting
  ("simmering on a low flame");
- **another quantity**: the question sets another quantity of the unit the figure is stated
  with ("with a 10w charger" against "with a 20 W USB-C charger"), or names another quantity of
  the thing it is stated with ("one of your 450 g gas canisters" against "with a 230 g
  canister").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping

from app.chat.evidence import stem, stems
from app.retrieval.terms import STOPWORDS

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+")
_BRACKETS = re.compile(r"\(([^()]*)\)")
_ITEM = r"[A-Za-z][A-Za-z-]{2,}"
# "alkaline, lithium or NiMH", "lithium and NiMH"; the first an item of its own, not the last
# word of one ("Next Working Day, Saturday or Express": no "Day")
_LIST = re.compile(rf"(?<![A-Za-z]\s)\b({_ITEM})((?:,\s+{_ITEM})*),?\s+(?:or|and)\s+({_ITEM})\b")
_MORE = re.compile(rf",\s+({_ITEM})")

# a figure with its unit: what a condition is attached to
_FIGURE = r"\d[\d,.]*\s?(?:g|kg|ml|l|litres?|cm|mm|m|h|hours?|minutes?|mins?)\b"
_FIGURE_OF_PART = re.compile(_FIGURE + r"[^.;:]{0,25}?\b(?:only|excluding|without)\b", re.I)
_FIGURE_WITH = re.compile(_FIGURE + r"[^.;:]{0,25}?\b(?:including|incl|with)\b", re.I)
_ASKS_WITH = re.compile(
    r"\b(?:together with|including|with (?:its|the|a)|plus)\b(?:\s+[\w-]+){0,4}", re.I
)
_ASKS_ALONE = re.compile(
    r"\b(?:on its own|by itself|alone|just the|without|excluding)\b(?:\s+[\w-]+){0,2}", re.I
)
_NOT = re.compile(r"\b(?:not|instead of|rather than)\s+((?:[\w'-]+\s+){0,3}[\w'-]+)", re.I)
_NEGATIONS = frozenset(
    "not no never without isn't aren't don't doesn't can't cannot won't".split()  # noqa: SIM905
)


def alternatives(texts: Iterable[str]) -> dict[str, frozenset[str]]:
    """Word stems the pages list as one set of alternatives inside brackets ("(alkaline, lithium
    or NiMH)"), each mapped to the others of its sets."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for bracket in _BRACKETS.findall(text):
            for match in _LIST.finditer(bracket):
                items = [match.group(1), *_MORE.findall(match.group(2)), match.group(3)]
                kept = {stem(i.lower()) for i in items if i.lower() not in STOPWORDS}
                for one, other in itertools.permutations(kept, 2):
                    found.setdefault(one, set()).add(other)
    return {one: frozenset(others) for one, others in found.items()}


def other_case(
    question: str,
    line: str,
    siblings: Mapping[str, frozenset[str]],
    *,
    named: frozenset[str] = frozenset(),
) -> str | None:
    """The question's words for a case ``line`` (the line chosen to give the figure) is not
    stated for ("alkaline", "without its lid", "not on full power"), or None when the line's
    case is the asked one or the line states none. ``siblings``: the pages' sets of
    alternatives (`alternatives`); ``named``: the stems of the product's name, never a case."""
    return (
        _another_alternative(question, line, siblings, named)
        or _another_scope(question, line)
        or _negated_condition(question, line)
        or _another_setting(question, line)
        or _another_quantity(question, line, named)
    )


# a figure stated at full power, and a question asking it at a low one: "About 60 minutes on full
# power" is not how long a canister lasts "if I'm just simmering on a low flame"
_FULL_POWER = re.compile(r"\b(?:on|at)\s+full\s+(?:power|heat|output)\b", re.I)
_LOW_SETTING = re.compile(
    r"\b(?:simmer\w*|(?:on|at)\s+(?:a\s+)?low(?:er)?(?:\s+(?:flame|heat|power|setting))?"
    r"|low(?:er)?\s+(?:flame|heat|power|setting))\b",
    re.I,
)


def _another_setting(question: str, line: str) -> str | None:
    if not _FULL_POWER.search(line):
        return None
    low = _LOW_SETTING.search(question)
    return low.group(0) if low else None


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _content(word: str) -> bool:
    return len(word) >= 3 and word not in STOPWORDS and not word.isdigit()


def _another_alternative(
    question: str, line: str, siblings: Mapping[str, frozenset[str]], named: frozenset[str]
) -> str | None:
    if not re.search(r"\d", line):
        return None
    cases = {stem(w) for b in _BRACKETS.findall(line) for w in _words(b) if _content(w)}
    if not cases:
        return None
    asked = [w for w in _words(question) if _content(w)]
    asked_stems = {stem(w) for w in asked}
    held = stems(line)
    for word in asked:
        own = stem(word)
        if own in held or own in named:
            continue
        if (siblings.get(own, frozenset()) & cases) - asked_stems:
            return word
    return None


def _another_scope(question: str, line: str) -> str | None:
    asked = _ASKS_WITH.search(question)
    if asked and _FIGURE_OF_PART.search(line):
        return asked.group(0)
    asked = _ASKS_ALONE.search(question)
    if asked and _FIGURE_WITH.search(line):
        return asked.group(0)
    return None


def _negated_condition(question: str, line: str) -> str | None:
    if not re.search(_FIGURE, line, re.I):
        return None
    said = _words(line)
    for match in _NOT.finditer(question):
        if any(_stated_unnegated(run, said) for run in _runs(_words(match.group(1)))):
            return match.group(0)
    return None


# a quantity the question sets as its condition: "with a 10w charger", "at 3,000 m", "on a 230g
# canister", "off an old 10W phone plug"; the same unit in the line: "(20 W)", "with a 20 W
# USB-C charger"
_UNIT = r"(w|kw|g|kg|ml|l|litres?|mah|lm|lumens?|cm|mm|m|°c)\b"
_SET_QUANTITY = re.compile(
    r"\b(?:with|using|on|at|from|off|via)\s+(?:an?\s+|the\s+|my\s+)?"
    r"(?:(?:old|new|little|standard|normal|about|around|roughly)\s+)?(\d[\d,]*(?:\.\d+)?)\s?"
    + _UNIT,
    re.I,
)
_QUANTITY = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s?" + _UNIT, re.I)
# a quantity of a thing: "450 g gas canisters", "a 230 g canister", the two words after it
_QUANTITY_OF = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s?" + _UNIT + r"((?:\s+[a-z][a-z-]*){1,2})", re.I
)


# a limit the line states in a unit ("for people up to 185 cm tall", "under 100 Wh"): a quantity
# asked in it is for the shopper to hold against the limit, not another case ("I'm 192 cm tall")
_LIMIT = re.compile(
    r"\b(?:up\s+to|under|below|less\s+than|more\s+than|over|above|at\s+least|max(?:imum)?"
    r"|min(?:imum)?)\s+(?:\d[\d,]*(?:\.\d+)?)\s?" + _UNIT,
    re.I,
)


def _another_quantity(question: str, line: str, named: frozenset[str]) -> str | None:
    """A quantity the question sets as its condition ("with a 10w charger") when the line
    states the figure with another quantity of that unit ("with a 20 W USB-C charger") and not
    the asked one, or another quantity of the thing the line names after its own ("450 g gas
    canisters" against "a 230 g canister"); a number of the product's name is no condition."""
    limited = {_unit(unit) for unit in _LIMIT.findall(line)}
    stated: dict[str, set[float]] = {}
    for number, unit in _QUANTITY.findall(line):
        stated.setdefault(_unit(unit), set()).add(_number(number))
    for match in _SET_QUANTITY.finditer(question):
        number, unit = match.groups()
        if number.replace(",", "") in named:
            continue
        found = stated.get(_unit(unit))
        if found and _number(number) not in found and _unit(unit) not in limited:
            return match.group(0)
    # a quantity of the thing the line's figure is stated with ("one of your 450 g gas
    # canisters": "About 60 minutes … with a 230 g canister")
    things = {
        (_unit(unit), stem(w))
        for _, unit, after in _QUANTITY_OF.findall(line)
        for w in _words(after)
        if _content(w)
    }
    for match in _QUANTITY_OF.finditer(question):
        number, unit, after = match.groups()
        own = number.replace(",", "")
        if (
            {own, f"{own}{unit.lower()}"} & named
            or _number(number) in stated.get(_unit(unit), ())
            or _unit(unit) in limited
        ):  # of the product's name ("the Langdale 2L jacket"), the stated quantity, or a limit
            continue
        if any((_unit(unit), stem(w)) in things for w in _words(after) if _content(w)):
            return match.group(0).strip()
    return None


def _unit(unit: str) -> str:
    unit = unit.lower()
    return "l" if unit.startswith("litre") else "lm" if unit.startswith("lumen") else unit


def _number(number: str) -> float:
    return float(number.replace(",", ""))


def _runs(words: list[str]) -> Iterator[list[str]]:
    """Every run of two or more of ``words`` that holds a content word, longest first."""
    for start in range(len(words)):
        for end in range(len(words), start + 1, -1):
            if any(_content(w) for w in words[start:end]):
                yield words[start:end]


def _stated_unnegated(run: list[str], said: list[str]) -> bool:
    """Whether ``said`` holds ``run`` with no negation in the three words before it."""
    return any(
        said[at : at + len(run)] == run and not _NEGATIONS & set(said[max(0, at - 3) : at])
        for at in range(len(said) - len(run) + 1)
    )
