"""Which product a piece of text is about, judged from the titles of the passages at hand.

A shop's product names share words ("Stormhollow 2 Tent", "Stormhollow 3 Tent", "Stormhollow 2
Footprint"), so a product is named when the distinctive words of its title are there, its model
number included: "the Stormhollow 3" names the 3-person tent and not the 2. Category words
("tent", "jacket", "men's") are not distinctive: shoppers leave them out or use their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from app.retrieval.published_index import ScoredPassage
from app.retrieval.terms import identifiers

PRODUCT_CODE = re.compile(r"\b[A-Za-z]{2,}-[A-Za-z0-9-]*\d{3,}\b")  # FH-TNT-7020
_POSSESSIVE = re.compile(r"(?<=[a-z0-9])['’]s\b")
_TOKEN = re.compile(r"[a-z0-9]+(?:[-.+][a-z0-9]+)*")
# Words a product title shares with its category, or that say who or what kind it is for.
GENERIC = frozenset(
    """the a an and with for of in men mens women womens unisex kids junior adult tent tents
    jacket jackets trousers trouser boot boots shoe shoes sleeping bag bags backpack rucksack
    mat stove bottle headlamp torch fleece waterproof lightweight down insulated walking hiking
    mountain trail running leather trekking poles pole base layer layers gas canister canisters
    pair""".split()  # noqa: SIM905
)
# A model number: digits, or letters and digits together ("3L", "700R", "65+10").
_NUMBERED = re.compile(r"\d")
# the words of GENERIC that name a kind of product or whom it is cut for, not the joining ones
_KIND_WORDS = GENERIC - {"the", "a", "an", "and", "with", "for", "of", "in"}


def tokens(text: str) -> list[str]:
    """Lower-case words of ``text``: a possessive "'s" after a name or number dropped ("800's" →
    "800"), other apostrophes removed ("men's" → "mens")."""
    text = _POSSESSIVE.sub("", text.lower())  # "the Cairngorm 800's shell"
    return _TOKEN.findall(text.replace("'", "").replace("’", ""))


def name_words(title: str) -> frozenset[str]:
    """The distinctive words of a product title: its name and model number, no category."""
    return frozenset(w for w in tokens(title) if w not in GENERIC)


def names(text: str, title: str) -> float:
    """How fully ``text`` names the product called ``title``: 0 (not at all) to 1 (fully).

    A title's model number must be there when the text gives any number for the same name
    ("Stormhollow 3" does not name "Stormhollow 2 Tent"); otherwise the share of its
    distinctive words the text holds.
    """
    wanted = name_words(title)
    if not wanted:
        return 0.0
    said = set(tokens(text))
    said |= {w for w in wanted if _NUMBERED.search(w) and _extends(w, said)}  # "ridgeline 65"
    held = wanted & said
    if not held or not any(not _NUMBERED.search(w) for w in held):
        return 0.0  # a bare number ("2") names nothing
    numbers = {w for w in wanted if _NUMBERED.search(w)}
    if numbers and not numbers & said:
        said_numbers = {w for w in said if _NUMBERED.search(w)}
        if said_numbers:  # another model of the same line
            return 0.0
    return len(held) / len(wanted)


def _extends(model: str, said: set[str]) -> bool:
    """Whether ``model`` is a number said with its extra ("65+10" of a said "65")."""
    return any(model.startswith(f"{number}+") for number in said if number[:1].isdigit())


def extends_model(number: str, models: set[str]) -> bool:
    """Whether a said ``number`` is one of ``models`` said without its extra ("65" of
    "65+10")."""
    return any(_extends(model, {number}) for model in models)


# how fully a text must name a product (`names`) to name it
NAMED = 0.5


def named_titles(text: str, titles: Iterable[str], *, threshold: float = NAMED) -> list[str]:
    """The titles ``text`` names most fully (and with the most of their words: "Stormhollow 2
    Footprint" over "Stormhollow 2 Tent"), in the given order. Between titles named by the same
    words, the kind of product the text names decides ("the Little Fell kids jacket": the
    Little Fell Kids' Waterproof Jacket, not the Little Fell Kids' Waterproof Walking Boot)."""
    said = set(tokens(text))
    scored = [
        ((names(text, title), len(name_words(title) & said)), title)
        for title in dict.fromkeys(titles)
    ]
    named = [s for s in scored if s[0][0] >= threshold]
    best = max((s[0] for s in named), default=(0.0, 0))
    top = [title for score, title in named if score == best]
    if len(top) > 1 and len({name_words(t) & said for t in top}) == 1:
        # a kind said in the plural names the title's singular ("the Little Fell kids' boots")
        singular = said | {w.removesuffix("s") for w in said}
        kinds = {t: len(set(tokens(t)) & singular) for t in top}
        top = [t for t in top if kinds[t] == max(kinds.values())]
    return top


# Words that tell apart the cuts of one product: "Torridon 3L Waterproof Jacket Men's/Women's".
CUT_WORDS = frozenset("mens womens men women ladies kids childrens junior unisex".split())  # noqa: SIM905


# The cut a shopper names, in their words: "for women", "the ladies' one", "mens"
_CUT_SAID = {
    "mens": "mens", "men": "mens", "womens": "womens", "women": "womens", "ladies": "womens",
    "kids": "kids", "childrens": "kids", "children": "kids", "junior": "kids",
}  # fmt: skip


def cut_asked(text: str) -> str | None:
    """The one cut ``text`` names ("mens", "womens", "kids"), or None for none or several."""
    said = {_CUT_SAID[w] for w in tokens(text) if w in _CUT_SAID}
    return said.pop() if len(said) == 1 else None


def cut_alone(text: str) -> str | None:
    """The cut ``text`` names when it names nothing else ("kids", "children": "kids")."""
    words = tokens(text)
    return cut_asked(text) if words and all(w in _CUT_SAID for w in words) else None


def without_cut(title: str) -> tuple[str, ...]:
    """The words of ``title`` but for whom it is cut for."""
    return tuple(w for w in tokens(title) if w not in CUT_WORDS)


def cuts(titles: Iterable[str]) -> bool:
    """``titles`` are two or more cuts of one product, alike but for whom they are cut for."""
    named = set(titles)
    kept = {without_cut(t) for t in named}
    return len(named) > 1 and len(kept) == 1


def compared(
    text: str, titles: Iterable[str], *, loosely: bool = False, kinds: frozenset[str] = frozenset()
) -> list[str]:
    """The ``titles`` that ``text`` fully names, in their order; a title inside a longer one it
    names is not another ("the Beacon 400 Rechargeable Battery Pack" names no "Beacon 400
    Headlamp" beside it). ``loosely`` (the text compares products: "what's the difference
    between …"): and those it names by their line's name alone (`_by_line`), of ``kinds`` too
    where the text names none (the kind of the product it is compared with)."""
    titles = list(dict.fromkeys(titles))
    full = {t: name_words(t) for t in titles if names(text, t) == 1.0}
    found = [t for t, words in full.items() if not any(words < other for other in full.values())]
    found = _of_kind_named(text, found)  # "the little fell jacket": not the boot of that name
    if loosely:
        more = set(_by_line(text, titles, kinds)) | set(_by_model(text, titles))
        found += [t for t in titles if t in more and t not in found]
    return found


def _by_model(text: str, titles: Sequence[str]) -> list[str]:
    """The titles ``text`` names by their line's name and a model number no other title of
    the line has: "the beacon 700r" (the Beacon 700R Rechargeable Headlamp, which "the beacon
    400" is not)."""
    said = set(tokens(text))
    named = {t: words for t in titles if (words := tokens(t)) and words[0] in said}
    found = []
    for title, words in named.items():  # a line's other titles share its first word
        models = {w for w in words[1:] if _NUMBERED.search(w)} & said
        line = [set(w) for t, w in named.items() if w[0] == words[0] and t != title]
        if models and not any(models & other for other in line):
            found.append(title)
    return found


def _of_kind_named(text: str, titles: list[str]) -> list[str]:
    """``titles`` without those named by the same words as another whose kind ``text`` names
    when theirs it does not ("the Little Fell kids jacket": the jacket, not the walking boot)."""
    kinds = kinds_named(text)
    return [
        t
        for t in titles
        if kinds & set(tokens(t))
        or not any(
            name_words(o) == name_words(t) and kinds & set(tokens(o)) for o in titles if o != t
        )
    ]


def kinds_named(text: str) -> set[str]:
    """The kinds of product ``text`` names, in the singular as titles name them ("jacket")."""
    return {w.removesuffix("s") for w in tokens(text) if w in _KIND_WORDS}


def _by_line(text: str, titles: Sequence[str], kinds: frozenset[str] = frozenset()) -> list[str]:
    """The titles ``text`` names by their product line's name, the title's first word, when it
    gives no model number another title of the line has: "the skiddaw" (one product), "the
    torridon jackets" (the kind named picks the men's and the women's cut, not the
    overtrousers; where the text names none, one of ``kinds``); none when the line's products
    are more than the cuts of one."""
    said = set(tokens(text))
    wanted = kinds_named(text) or kinds
    lines = {t: words[0] for t in titles if (words := tokens(t))}
    found: list[str] = []
    for line in set(lines.values()) & said:
        owners = [t for t, first in lines.items() if first == line and names(text, t) > 0]
        if len(owners) > 1:  # the kind the text names picks among them
            owners = [t for t in owners if wanted & set(tokens(t))] or owners
        if len(owners) == 1 or cuts(owners):
            found += owners
    return found


def subject(texts: Sequence[str], passages: Sequence[ScoredPassage]) -> str | None:
    """The product the conversation is about: the first of ``texts`` (newest first) that names
    one product of ``passages``; None when none does, or when the newest naming is ambiguous."""
    titles = [h.passage.title for h in passages if h.passage.kind == "product"]
    for text in texts:
        coded = {h.passage.title for h in passages if _has_code(h, identifiers(text))}
        if len(coded) == 1:
            return coded.pop()
        named = named_titles(text, titles)
        if len(named) == 1:
            return named[0]
        if named:
            return None
    return None


def _has_code(hit: ScoredPassage, codes: set[str]) -> bool:
    """The passage is the record of one of ``codes`` (its SKU or record key)."""
    if hit.passage.kind != "product" or not codes:
        return False
    key = hit.passage.document_id.rpartition("#")[2].lower()
    return key in codes or any(f"sku: {code}" in hit.passage.text.lower() for code in codes)
