"""A question that asks what the shop sells of a kind, answered from the catalogue.

"What headlamps do you sell?", "do you have any tents?", "show me your backpacks": no one line of
the pages answers these (retrieval finds one headlamp's description and a warranty line); the
catalogue does. The kind is the question's words once its framing and fillers are cut, and the
products are those whose titles hold every one of them ("waterproof jackets for kids": the
Little Fell Kids' Waterproof Jacket). A question whose kind no title holds ("do you sell gift
cards?", "do u stock salomon trail shoes?") is no listing and is answered as any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.chat.evidence import stems
from app.chat.products import CUT_WORDS, cut_alone, cut_asked, tokens
from app.index.passage import Passage

_SELLS = r"(?:sell|stock|have|carry|do|offer|make)"
_YOU = r"(?:you|u|ya)"
_ASKS = re.compile(
    r"^\s*(?:(?:so|and|ok|okay|hi|hello|hey)\b[,!]?\s*)?(?:"
    rf"(?:what|which)\s+(?:(?:kinds?|types?|sorts?|models?)\s+of\s+)?(?P<what>.+?)\s+"
    rf"(?:do|can)\s+{_YOU}\s+{_SELLS}(?:\s+(?P<whom>for\s+(?:women|men|kids|children|ladies)))?"
    r"|(?:what|which)\s+(?P<got>.+?)\s+(?:have\s+you\s+got|are\s+(?:there|available|for\s+sale))"
    rf"|(?P<yes>do|does)\s+{_YOU}\s+{_SELLS}\s+(?P<any>.+?)"
    r"|(?:show|list)\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?(?P<show>.+?)"
    r")\s*(?:at\s+all|please|then)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# a second question after the kind: "do you do a student discount and how much is it?"
_NEXT_QUESTION = re.compile(
    r"\s*(?:,\s*(?:(?:and|or|but)\s+)?|\s(?:and|or|but)\s+)(?=(?:how|what|when|where|which|why|"
    r"who|is|are|can|could|do|does|will|would)\b)",
    re.IGNORECASE,
)
_FILLERS = frozenset("any a an the your all some other of for".split())  # noqa: SIM905
# what a shopper calls products of any kind ("do you have anything for kids?")
_ANY_KIND = frozenset("anything something stuff products things items gear kit".split())  # noqa: SIM905
_PRICE = re.compile(r"^Price \(GBP\):\s*(\d+(?:\.\d+)?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Listed:
    """What a listing question asks for: the kind in the shopper's words ("tents"), its word
    stems, and whether it asked whether the shop sells them at all ("do you sell tents?")."""

    kind: str
    words: frozenset[str]
    asks_whether: bool
    # what the shopper asks a recommendation for ("for winter hiking in Scotland", or "" when
    # the message says not): the pages rank none of the kind for it, so each is listed with
    # what its description says it is for; None: no recommendation is asked
    use: str | None = None


def asks_for_list(question: str) -> Listed | None:
    """The kind of product ``question`` asks the shop's range of, if it asks that, or asks
    which of the kind the shop recommends (`asks_recommendation`)."""
    found = _ASKS.match(question)
    if found is None:
        return asks_recommendation(question)
    phrase = next(g for g in ("what", "got", "any", "show") if found.group(g) is not None)
    said = _NEXT_QUESTION.split(found.group(phrase), maxsplit=1)[0].split()
    said += found.group("whom").split() if found.group("whom") else []  # "… have for women?"
    while said and said[0].lower() in _FILLERS | _ANY_KIND:  # "any tents", "anything for kids"
        said = said[1:]
    words = stems(" ".join(w for w in said if w.lower() not in _FILLERS))
    if not words:
        return None
    return Listed(" ".join(said), words, asks_whether=found.group("yes") is not None)


_RECOMMEND = r"(?:would|do|can|could|should)\s+(?:you|u)\s+(?:recommend|suggest)"
# "which jacket would you recommend for winter hiking?", "can you recommend a tent for two
# people?", "I need a jacket for Scotland in November, what do you recommend?", "what's the best
# sleeping bag for cold nights?"
_RECOMMENDS = re.compile(
    r"^\s*(?:(?:so|and|ok|okay|hi|hello|hey)\b[,!]?\s*)?(?:"
    rf"(?:which|what)\s+(?:(?:kind|type|sort)\s+of\s+)?(?P<which>.+?)\s+{_RECOMMEND}"
    r"(?:\s+for\s+(?P<use>.+?))?"
    r"|(?:can|could)\s+(?:you|u)\s+(?:recommend|suggest)\s+(?:me\s+)?(?P<some>.+?)"
    r"|i(?:'m|\s+am)?\s+(?:need|want|looking\s+for|after)\s+(?P<need>.+?)[,.;]?\s+"
    rf"(?:what|which\s+(?:one|do\s+you\s+recommend))(?:\s+{_RECOMMEND})?"
    r"|what(?:'s|\s+is|\s+are)\s+(?:the|your)\s+best\s+(?P<best>.+?)"
    r")\s*(?:please)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
_USE = re.compile(r"\s+(?=(?:for|to|in|on)\s+)", re.IGNORECASE)  # "a tent for two people"
_ONE = frozenset("one ones".split())  # noqa: SIM905


def asks_recommendation(question: str) -> Listed | None:
    """The kind ``question`` asks the shop to recommend one of, and what for, if it asks that
    ("which jacket would you recommend for winter hiking in Scotland?": jackets, "winter
    hiking in Scotland"). The pages rank no product for a shopper's use, so the answer lists
    the kind, each with what its own page says it is for."""
    found = _RECOMMENDS.match(question)
    if found is None:
        return None
    said = next(found.group(g) for g in ("which", "some", "need", "best") if found.group(g))
    kind = _USE.split(said, maxsplit=1)[0]
    use = f"for {found.group('use')}" if found.group("use") else said[len(kind) :].strip()
    words = [w for w in kind.split() if w.lower() not in _FILLERS | _ANY_KIND | _ONE]
    stemmed = stems(" ".join(words))
    if not stemmed or len(words) > 3:  # "which one would you recommend?", "the most weight …"
        return None
    return Listed(" ".join(words), stemmed, asks_whether=False, use=use)


def for_whom_only(listed: Listed) -> str | None:
    """The cut a listing asks for when it names whom, not a kind ("do you have anything for
    kids?": "kids"), as `cut_asked` gives it; None otherwise."""
    return cut_alone(listed.kind)


def cut_and_kind(listed: Listed) -> tuple[str, frozenset[str]] | None:
    """The cut a listing asks for and the word stems of its kind without it ("women's
    jackets": "womens" and "jacket"; a title's cut is no word of its kind), when it names one
    cut and a kind; None otherwise."""
    cut = cut_asked(listed.kind)
    if cut is None or cut_alone(listed.kind):
        return None
    kind = listed.words - stems(" ".join(w for w in tokens(listed.kind) if w in CUT_WORDS))
    return (cut, kind) if kind else None


def price(record: Passage) -> str:
    """The price a product record's passage gives, as shown ("£39.00"); "" when it gives none."""
    found = _PRICE.search(record.text)
    return f"£{float(found.group(1)):,.2f}" if found else ""


def listing_answer(listed: Listed, records: Sequence[Passage], *, of: int | None = None) -> str:
    """The products of ``records`` (each cited by its number, from 1) under one line saying
    what they are, phrased by template; ``of``: how many the shop sells of the kind, when
    ``records`` are only the first of them (`MAX_LISTED`)."""
    total = len(records) if of is None else of
    one = total == 1
    kind = listed.kind
    if listed.use is not None and not kind.lower().endswith("s"):  # "which tent …?": tents
        kind += "s"
    plural = not one and kind.split(" for ")[0].lower().endswith("s")
    said = f"{total} {kind}" if plural else "one" if one else f"{total} of these"
    lead = f"{'Yes, we' if listed.asks_whether else 'We'} sell {said}"
    if total > len(records):
        lead += f"; the first {len(records)}"
    if listed.use is not None:  # a recommendation: the pages pick none for the shopper's use
        best = f"which is best {listed.use}" if listed.use else "which would suit you best"
        said_for = "its page says it is" if one else "each one's page says it is"
        lead = f"Our pages don't say {best}. {lead}, with what {said_for} for"
    items = []
    for number, record in enumerate(records, start=1):
        cost = price(record)
        made_for = _made_for(record) if listed.use is not None else ""
        items.append(
            f"- {record.title}{f', {cost}' if cost else ''}{f': {made_for}' if made_for else ''}"
            f" [{number}]"
        )
    ask = "it" if one else "any of them"
    if total > len(records):
        ask += ", or tell me what you need it for and I'll narrow them down"
    return f"{lead}:\n\n" + "\n".join(items) + f"\n\nAsk me about {ask} for the details."


_DESCRIPTION = re.compile(r"^Description:\s*(.+?[.!?])(?=\s|$)", re.MULTILINE)


def _made_for(record: Passage) -> str:
    """The first sentence of the description a product record's passage gives, word for word
    ("A freestanding three-season tent for two, …"); "" when it gives none."""
    found = _DESCRIPTION.search(record.text)
    return found.group(1) if found else ""


MAX_LISTED = 10  # a listing names at most this many products, and says how many there are

_NTH = "first second third fourth fifth sixth seventh eighth ninth tenth".split()  # noqa: SIM905
_ORDINALS = {
    **{word: number for number, word in enumerate(_NTH, start=1)},
    **{
        f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}": n
        for n in range(1, 11)
    },
}
# "the first one", "the 2nd", "the last one", "number 3", "no. 2" (not "the first time")
_PICKED = re.compile(
    rf"\bthe\s+(?P<nth>{'|'.join(_ORDINALS)}|last)\b"
    r"(?!\s+(?:time|day|week|month|year|night|use|wash|order)s?\b)"
    r"|\b(?:number|no\.?|#)\s*(?P<number>[1-9]|10)\b",
    re.IGNORECASE,
)


def picked_place(question: str, count: int) -> int | None:
    """Which of ``count`` products a listing named the follow-up picks by its place ("how long
    does the battery last on the first one?", "and number 2?"), from 0; None when it picks none
    or one the listing did not have."""
    found = _PICKED.search(question)
    if found is None:
        return None
    nth, number = found.group("nth"), found.group("number")
    place = count if nth and nth.lower() == "last" else _ORDINALS.get((nth or "").lower())
    place = place or (int(number) if number else None)
    return place - 1 if place is not None and 1 <= place <= count else None
