"""A return or an exchange of a kind of product, asked as one of any item.

"how do I return some boots?", "I need to send back a jacket that doesn't fit", "can I swap my
fleece for a bigger size?": the kind's words draw its own pages by meaning (the boots' care
lines, a fleece's fit), while the shop's returns are the same for every item it has no rule of
its own for. Such a message is read as asked of "an item" to find the FAQ it asks ("How do I
return an item?", "Can I exchange an item for a different size or colour?"); the transcript
keeps the shopper's words.

A kind the pages give a rule of its own is left as asked: a line naming it in the same clause as
a return, an exchange or a refund ("Can I return a tent or sleeping bag I've used?", "gas
canisters cannot be returned"), an item of a list led by one ("we can't accept returns of: used
tents, …; socks that have been removed from their packaging; …", the section "Items we can't
accept back"). What a list item is an example of is its own ("personalised items, such as
jackets …": personalised items, not jackets).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.chat.evidence import kind_stems, stem, stems
from app.chat.products import tokens
from app.index.passage import Passage

# the verbs of a return, an exchange or a refund
_RETURNING = r"return\w*|exchang\w*|swap\w*|refund\w*"
# a return, an exchange or a refund asked for ("send it back", "swap my fleece", "money back")
_ASKS_RETURN = re.compile(
    rf"\b(?:{_RETURNING}|send\w*\s+(?:\S+\s+){{0,4}}?back|"
    r"sent\s+(?:\S+\s+){0,4}?back|take\s+(?:\S+\s+){0,3}?back|money\s+back)\b",
    re.IGNORECASE,
)
# "swap them", "return it", "send this back", "is this returnable": the product the turn is on
_POINTED = re.compile(
    rf"\b(?P<verb>{_RETURNING}|send\w*|take)\s+(?:it|them|this|these)\b",
    re.IGNORECASE,
)
_POINTED_SUBJECT = re.compile(
    r"\b(?:is|are)\s+(?:it|this|they|these)(?=\s+(?:return|refund|exchang)\w*able\b)",
    re.IGNORECASE,
)
# "send an item back", "sending it back": returning it, as the pages say
_SEND_BACK = re.compile(
    r"\bsend(?:ing)?\s+(?P<what>(?:it|them|this|these|that|those|an\s+item)\s+)?back\b",
    re.IGNORECASE,
)
# the words of a line that give a kind a rule of its own
_RULE = frozenset(stem(w) for w in ("return", "returns", "exchange", "refund", "swap"))
_ACCEPT_BACK = re.compile(r"\baccept\w*\b.*\bback\b", re.IGNORECASE)
_REFUSING = re.compile(r"\b(?:can(?:no|')t|cannot|won't|not|no)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE = re.compile(r";\s*")
_EXAMPLES = re.compile(r"\b(?:such\s+as|like|e\.g\.|for\s+example|including)\b.*", re.I | re.S)
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_DETERMINERS = frozenset(
    "a an the my our your ur some these those this that his her their two three".split()  # noqa: SIM905
)
ITEM = "an item"


class AnyItem:
    """The kinds the catalogue sells (a title's last word: boot, jacket, tent), the words their
    titles hold, and the kinds the pages give a return rule of their own."""

    def __init__(self, passages: Iterable[Passage]) -> None:
        passages = list(passages)
        titles = [p.title for p in passages if p.kind == "product"]
        self._kinds = frozenset().union(*(kind_stems(t) for t in titles))
        self._title_words = frozenset(w for t in titles for w in tokens(t))
        ruled: set[str] = set()
        for passage in passages:
            ruled |= self._ruled(passage) & self._kinds
        self._ruled_kinds = frozenset(ruled)

    def read(self, message: str) -> str | None:
        """``message`` with the kind of product it asks to return or exchange read as "an
        item" ("how do I return an item?"); None when it asks no return, names no kind the
        catalogue sells, or one the pages give a rule of their own."""
        if not _ASKS_RETURN.search(message):
            return None
        words = list(re.finditer(r"[\w'’-]+", message))
        for index, word in enumerate(words):
            kind = stems(word.group(0)) & self._kinds
            if not kind or kind & self._ruled_kinds:
                continue
            start = index
            while start > 0 and words[start - 1].group(0).lower() in self._title_words:
                start -= 1  # "walking boots", "down jacket"
            if start > 0 and words[start - 1].group(0).lower() in _DETERMINERS:
                start -= 1
            return _as_returned(f"{message[: words[start].start()]}{ITEM}{message[word.end() :]}")
        return None

    def read_of(self, message: str, title: str, shown: str = "") -> str | None:
        """``message``, asked on the product of ``title``, read as :meth:`read` reads it, and
        with "it", "them", "this", "these" returned read as any item ("can I swap them for a
        bigger size?", "is this returnable?"), unless the answer the shopper was just
        ``shown`` refuses a return (what "it" is may be what that refuses: "can I return it
        then?" after "personalised items can't be returned"); None when it asks no return, or
        the product's kind has a rule of its own (a tent pitched: the pages' rule answers)."""
        if not _ASKS_RETURN.search(message) or kind_stems(title) & self._ruled_kinds:
            return None
        pointed = _POINTED.sub(lambda m: f"{m['verb']} {ITEM}", message, count=1)
        pointed = _POINTED_SUBJECT.sub(f"is {ITEM}", pointed, count=1)
        if pointed != message and _refuses(shown):
            return self.read(message)
        pointed = _singular(pointed) if pointed != message else pointed
        general = self.read(pointed)
        return _as_returned(pointed) if general is None and pointed != message else general

    @staticmethod
    def _ruled(passage: Passage) -> set[str]:
        """The stems a return rule of ``passage`` is about: those of a clause holding a return
        word, and of the items of a list led by one, but for what an item is an example of."""
        found: set[str] = set()
        led = _leads(passage.section.rpartition("›")[2])  # "Items we can't accept back"
        for line in passage.text.splitlines():
            if _ITEM.match(line):  # a list's item, under a heading or a line leading to it
                if led:
                    found |= stems(_EXAMPLES.sub("", re.split(r"[,.:]", _ITEM.sub("", line))[0]))
                continue
            led = (line.rstrip().endswith(":") and _leads(line)) or (led and not line.strip())
            for sentence in _SENTENCE.split(line):
                lead, colon, rest = sentence.partition(":")
                if colon and _leads(lead):  # "we can't accept returns of: used tents, …"
                    for clause in _CLAUSE.split(rest):
                        found |= stems(_EXAMPLES.sub("", clause))
                    continue
                for clause in _CLAUSE.split(sentence):
                    if _leads(clause):
                        found |= stems(_EXAMPLES.sub("", clause))
        if _leads(passage.title):  # an FAQ's question: "Can I return a tent …?"
            found |= stems(passage.title)
        return found


def _as_returned(text: str) -> str:
    """``text`` with "send … back" said as the pages say it: "return an item"."""
    return _SEND_BACK.sub(lambda m: f"return {m['what'] or ''}".rstrip(), text)


def _singular(text: str) -> str:
    """``text``, its pronoun read as "an item", with what goes on to speak of them in the plural
    said of it: "can I return an item if they don't fit?" asks as "… if it doesn't fit?"
    does."""
    start = text.find(ITEM) + len(ITEM) if ITEM in text else 0
    rest = text[start:]
    for plural, single in _AGREEMENT:
        rest = plural.sub(single, rest)
    return text[:start] + rest


# the plural that speaks again of what was pointed at, and its singular
_AGREEMENT: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(plural, re.IGNORECASE), single)
    for plural, single in (
        (r"\bthey\s+don['’]?t\b", "it doesn't"),
        (r"\bthey\s+do\s+not\b", "it does not"),
        (r"\bthey(?:['’]re|\s+are)\b", "it is"),
        (r"\bthey\s+were\b", "it was"),
        (r"\bthey\s+have\b", "it has"),
        (r"\bthey\b|\bthem\b", "it"),
    )
)


def _refuses(text: str) -> bool:
    """Whether ``text`` refuses a return, an exchange or a refund in a clause of its own
    ("Personalised items … can't be returned or exchanged unless they're faulty")."""
    return any(
        _leads(clause) and _REFUSING.search(clause)
        for sentence in _SENTENCE.split(text)
        for clause in _CLAUSE.split(sentence)
    )


def _leads(text: str) -> bool:
    """Whether ``text`` speaks of a return, an exchange or a refund."""
    return bool(stems(text) & _RULE) or bool(_ACCEPT_BACK.search(text))
