"""The yes or the no a shop's own line gives to a yes/no question, said first when it is plain.

"Can I put my Ridgeline 45 in the washing machine?" is answered by the record's line "Hand wash
with lukewarm water …; do not machine wash or use detergents". A shopper wants the "No" first;
the model cannot be trusted to say it (its yes or no is checked against the line, and mostly
dropped), so the composed answer opens with it, by template, when the line gives it plainly:

- the shop's own FAQ answer opens with it ("Yes, within 60 minutes …"), and the FAQ's own
  question is the shopper's (the selector's FAQ match);
- a record's field answers it by name ("Waterproof: No"), the field being what was asked;
- a clause of the line holds every content word of the question and negates it ("… do not
  machine wash …"): no; or the whole line holds them with no negation, no condition and no
  exception anywhere ("Sensors: Barometric altimeter, …" for "does it have a barometric
  altimeter?"), and not only in the name of another product the line names, nor in a name the
  question does not write ("our Leeds Collection Point" for "can I collect from a post
  office?"): yes.

Anything else (a condition, an "or" question, a question in parts, a word of the question the
line does not hold: "goose down" against "duck down") states neither: the lines speak alone. Nor
is a yes said against a line the shopper was shown the turn before that says no to what is asked
again, nor from a line under a heading that says no ("What the warranty does not cover").
"""

from __future__ import annotations

import re

from app.chat.claims import yes_no_question
from app.chat.dates import named_weekdays, spanned_weekdays
from app.chat.evidence import FIELD_NAMES, field_label, stem, stems
from app.retrieval.rewrite import asked_questions
from app.retrieval.terms import content_words

_OPENS_WITH = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
_FIELD_VALUE = re.compile(r"^[^:]{1,40}:\s*(yes|no)\b", re.IGNORECASE)
_NEGATION = re.compile(
    r"\b(?:no|not|never|none|cannot|can't|can’t|won't|won’t|without|unable|neither|nor)\b"
    r"|n['’]t\b",
    re.IGNORECASE,
)
# a line that answers only in some cases says neither yes nor no outright
_CONDITION = re.compile(
    r"\b(?:if|unless|only|except|but|however|instead|provided|subject|depending|may|might)\b",
    re.IGNORECASE,
)
# a clause ends at a sentence's end too: "… small enough to live in your pack. Not designed for
# sustained heavy rain …" negates the rain, not the packing
_CLAUSE = re.compile(r"[;,:()]|\s[–—-]\s|\band\b|\bor\b|(?<=[.!?])\s+")
# the question's frame, not what it asks: "can I get …", "does it come with …"
_FRAME = frozenset(
    stem(w)
    for w in """get got put use using come comes have has need want buy able possible still
    also ever really please""".split()  # noqa: SIM905
)


def plain_answer(
    question: str,
    line: str,
    *,
    product: str | None = None,
    faq_match: bool = False,
    other: str | None = None,
    before: str = "",
    heading: str = "",
) -> str | None:
    """ "yes" or "no" when ``line`` (the answer's first, verbatim) gives it plainly to
    ``question``; None otherwise. ``product``: the product the question is about (its name's
    words are not asked); ``faq_match``: ``line`` opens the shop's answer to the question the
    shopper asked; ``other``: another product the line names and the question does not, whose
    name says nothing of the asked one ("Is the Cairngorm 800 waterproof?": "Fits under the
    Torridon 3L Waterproof Jacket" is no yes); ``before``: what the shopper was shown the turn
    before, whose line saying no to what is asked again is not contradicted by a yes ("can i
    return it then?" after "Personalised items … can't be returned": the returns portal's line
    is no yes); ``heading``: the line's section's, which may say no of everything under it
    ("What the warranty does not cover": its "Consumable parts, such as … stove O-rings" is no
    yes to "is there a warranty on the stove?")."""
    if not yes_no_question(question) or _asks_several(question):
        return None
    opens = _OPENS_WITH.match(line)
    if opens:
        return opens.group(1).lower() if faq_match else None
    asked = _asked(question, product)
    if not asked:
        return None
    label = field_label(line)
    if label:  # "Field: value"
        named = label <= asked | _field_names(asked) or bool(label & asked)
        said = _FIELD_VALUE.match(line)
        if said:
            return said.group(1).lower() if named else None
        if named:  # the field asked by name: its value answers ("Stock: Out of stock"), or the
            asked = frozenset(w for w in asked - label if not _FIELDS_OF.get(w, set()) & label)
            if not asked:  # rest of the question must be in it ("recycled": "Materials: …")
                return None
        head, line = line.split(":", 1)
        if _NEGATION.search(head):  # "Does not remove: Viruses, …": the field itself says no
            return "no" if not _CONDITION.search(line) and asked <= stems(line) else None
    if _CONDITION.search(line) or _day_left_out(question, line):
        return None
    if not _NEGATION.search(line):
        held = stems(_unnamed(line, question)) - (stems(other or "") - stems(product or ""))
        said_no = _says_no(asked, before) or bool(_NEGATION.search(heading))
        return "yes" if asked <= held and not said_no else None
    return "no" if _says_no(asked, line) else None


def _unnamed(line: str, question: str) -> str:
    """``line`` without the names it gives that ``question`` does not write ("can I collect from
    a post office?": the "Collection" of "our Leeds Collection Point" is no collecting)."""
    asked = stems(question)
    return _NAME.sub(lambda m: m.group(0) if stems(m.group(0)) <= asked else " ", line)


# a name: capitalised words in a run ("Leeds Collection Point", "Post Office", "Click & Collect")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:&\s+)?[A-Z][a-z]+)+\b")


def _says_no(asked: frozenset[str], text: str) -> bool:
    """Whether a clause of ``text`` holds every word asked and negates it."""
    negated = [c for c in _CLAUSE.split(text) if c and _NEGATION.search(c)]
    return any(asked <= stems(clause) for clause in negated)


def _day_left_out(question: str, line: str) -> bool:
    """Whether ``line`` gives a span of days of the week that leaves out the day ``question``
    asks about: it names that day as the span's exception ("Orders placed … Monday to Saturday
    are ready within 2 hours; orders placed … on a Sunday … from the next opening day" is no
    yes to "can I collect on a Sunday?")."""
    asked = named_weekdays(question)
    spanned = spanned_weekdays(line)
    return bool(asked and spanned and not asked <= spanned)


def _asks_several(question: str) -> bool:
    """An "or" question ("black or blue?") or a message asking more than one thing."""
    return bool(re.search(r"\bor\b", question, re.IGNORECASE) or asked_questions(question))


def _asked(question: str, product: str | None) -> frozenset[str]:
    """The question's content word stems: not its frame, nor the product's own name."""
    words = {stem(w) for w in content_words(question) if not w.isdigit()}
    return frozenset(words - _FRAME - stems(product or ""))


# the record fields a shopper's word (by its stem) names: "made" → material
_FIELDS_OF = {stem(word): set(fields) for word, fields in FIELD_NAMES.items()}


def _field_names(asked: frozenset[str]) -> frozenset[str]:
    """The record fields the question's word stems name."""
    return frozenset(f for word in asked for f in _FIELDS_OF.get(word, ()))
