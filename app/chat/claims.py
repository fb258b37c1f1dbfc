"""Claim checks: a sentence of the model's answer is shown only when the shop's text supports it.

Checked against the passages about the product or topic the sentence names (the conversation's
product when it names none):

- a quotation must be verbatim in a passage;
- product codes and names (a capitalised word after the first: a place, a brand, a scheme)
  must be in those passages or in the question, and a product named by its line, model and
  kind must be one the shop sells (the service asks its catalog: `Catalog.unsold`);
- figures (prices, weights, sizes, durations, percentages, counts): each number must be in
  those passages or in the question, so "the 3-person tent weighs 1,550 g" fails when 1,550 g
  is the 2-person tent's weight;
- the sentence must be supported by one statement of those passages (sharing most of its
  words), and say it the same way, negated or not: "you can return a used tent" fails against
  "we can't accept tents that have been pitched outdoors". Where equally close statements
  disagree, the ones chosen as the turn's evidence decide; if they disagree too, it fails.

The checks are plain functions of plain data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.chat.citations import FIGURE, MARKER
from app.chat.evidence import FIELD_NAMES, Evidence, stem, stems
from app.chat.products import PRODUCT_CODE, named_titles
from app.chat.quotes import fabricated_quotes
from app.retrieval.published_index import ScoredPassage
from app.retrieval.terms import content_words

UNSUPPORTED_FIGURE = "unsupported_figure"
UNKNOWN_CODE = "unknown_code"
WRONG_POLARITY = "unsupported_polarity"
FABRICATED_QUOTE = "fabricated_quote"
UNKNOWN_NAME = "unsupported_name"
UNSOLD_PRODUCT = "unsold_product"  # a product the shop does not sell ("Stormhollow 3 footprint")
UNSUPPORTED = "unsupported_statement"
NOT_RESTATED = "not_in_shown_lines"
MODEL_DECLINED = "model_declined"

_DECLINES = re.compile(
    r"\b(?:don't|do not|doesn't|does not|didn't|did not) (?:know|have (?:any |that |this )?"
    r"(?:information|details)|say|mention|list|include|specify)"
    r"|\b(?:not|n't) sure\b|\b(?:couldn't|could not|can't|cannot|unable to) (?:find|answer|say)"
    r"|\bno (?:information|details|mention)\b|\bnot (?:mentioned|listed|stated|specified)\b"
    r"|\bmember of (?:our|the) (?:support )?team\b",
    re.IGNORECASE,
)
_YES_NO_QUESTION = re.compile(
    r"^\W*(?:is|are|can|could|do|does|did|will|would|has|have|should|may)\b", re.IGNORECASE
)
_NEGATION = re.compile(
    r"\b(?:no|not|never|none|nothing|cannot|can't|won't|don't|doesn't|isn't|aren't|wasn't|"
    r"weren't|shouldn't|couldn't|mustn't|without|unable|neither|nor)\b|n't\b",
    re.IGNORECASE,
)
_YES_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
# a sentence that answers yes or no: "Yes, …", "No, …", "The answer is yes, …"
_STATES_YES_NO = re.compile(r"^\W*(?:(?:the\s+)?answer\s+is:?\s+)?(yes|no)\b", re.IGNORECASE)
_LINE = re.compile(r"[^\n]+")
_DIGIT = re.compile(r"\d")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_NAME = re.compile(r"(?<=\S )(?:[A-Z][a-z]+|[A-Z]{2,})\b")
_NEGATING_PREFIXES = ("un", "non-", "non")
_NOT_PREFIXED = frozenset({"less", "like"})  # "unless", "unlike" do not negate them
MIN_SHARED_WORDS = 2  # a statement must share this many words with a sentence to speak to it
MIN_SUPPORT = 0.5  # ... and this share of the sentence's words (fitted on the tuning part)
RESTATED = 0.8  # the share of its words a sentence must have in one shown line to restate it
# A sentence that opens with the case it holds in: "If you have a refund, …", "Unless …, …"
_CONDITION = re.compile(
    r"^\W*(?:if|unless|when|whenever|once|as long as|provided(?: that)?|only if)\b([^,]+),",
    re.IGNORECASE,
)
# Words about the answer, not of it: "The answer is: 30 days", "The reason for this is…".
_ABOUT_THE_ANSWER = frozenset(stem(w) for w in ("answer", "reason"))


@dataclass(frozen=True)
class Dropped:
    """A sentence the shopper did not see, and why."""

    text: str
    reason: str


def check_sentence(
    sentence: str,
    *,
    passages: Sequence[ScoredPassage],
    question: str,
    product: str | None,
    evidence: Sequence[str] = (),
) -> str | None:
    """Why ``sentence`` may not be shown (one of the reasons above), or None when it may.

    ``evidence`` holds the lines chosen as the turn's answer: they settle a tie between
    equally close statements that disagree.
    """
    body = MARKER.sub(" ", sentence)
    if declines(body):
        return MODEL_DECLINED  # the evidence was judged to hold the answer: it is shown instead
    if fabricated_quotes(body, passages):
        return FABRICATED_QUOTE
    about = _about(body, passages, product)
    support = " ".join(f"{h.passage.title} {h.passage.text}" for h in about)
    allowed = f"{support} {question}".lower()
    for code in PRODUCT_CODE.findall(body):
        if code.lower() not in allowed:
            return UNKNOWN_CODE
    for name in _NAME.findall(body):
        if name.lower() not in allowed:
            return UNKNOWN_NAME
    known = numbers(f"{support} {question}")
    if any(number not in known for number in numbers(body)):
        return UNSUPPORTED_FIGURE
    if evidence and yes_no_question(question):
        # a yes or a no must agree with the lines shown as the answer, not any statement
        about = [h for h in about if any(line in h.passage.text for line in evidence)] or about
        return _statement_check(body, about, evidence, statements=evidence)
    return _statement_check(body, about, evidence)


def restates(
    sentence: str,
    lines: Sequence[str],
    *,
    question: str,
    product: str | None,
    answer: str = "",
) -> bool:
    """Whether ``sentence`` says what one of the shown ``lines`` says, and nothing more.

    The ``verified`` policy shows the model's words beside the shop's lines only when they
    restate them: every code is in the lines (or the question), most of the
    sentence's words (the product's own name aside: a record's lines do not repeat it) are in
    one line, its figures in the sentence of that line it restates most of (or the question),
    every word of a case it opens with ("If …,") is in that line or the question, every
    word that narrows or widens it ("only", "always", "one", "more") is in that line too, and
    the sentence agrees with that line on negation and on words negated by a prefix. A yes or
    a no the model adds is a claim the lines must make too: the line it restates must answer
    the same yes or no (the shop's FAQ answer "Yes, within 60 minutes"). A sentence that says
    little but a figure ("The answer is 14 days") restates ``answer``, the line shown as the
    answer, when one is given: another shown line's figure is of another case ("you can cancel
    an online order within 14 days of receiving it" beside "Yes, within 60 minutes").
    """
    body = MARKER.sub(" ", sentence)
    given = " ".join(lines) + " " + question
    if any(code.lower() not in given.lower() for code in PRODUCT_CODE.findall(body)):
        return False
    words = _words(body) - stems(product or "") - _ABOUT_THE_ANSWER
    if not words or (_YES_NO.match(body) and len(words) < 3):
        return False  # nothing to hold a yes or a no against: "Yes, on sleeping mats."
    if answer and len({w for w in words if not _DIGIT.search(w)}) < 2:
        lines = [answer]  # a figure and little else: the answer's figure, or none
    best = max(lines, key=lambda line: len(words & _words(line)), default="")
    if len(words & _words(best)) < RESTATED * len(words):
        return False
    # its figures are those of the line's sentence it restates most of: "The standard service
    # takes 2 working days" is not restated by "Standard delivery … takes 3–5 working days; …
    # Express delivery by DPD takes 2 working days"
    restated = max(_SENTENCE_END.split(best), key=lambda piece: len(words & _words(piece)))
    if not numbers(body) <= numbers(f"{restated} {question}"):
        return False
    if not _quantities(body) <= _quantities(f"{restated} {question}"):
        return False  # the 2 of "Zone 2" is not "2 working days"
    if not _attached_alike(body, f"{restated} {question}"):
        return False  # "The repair cost is £10" beside "We charge a £10 assessment fee, …"
    condition = _CONDITION.match(body)
    if condition and not _words(condition.group(1)) <= _words(f"{best} {question}"):
        return False  # "If you have a refund, you can …": a case the line does not name
    if not _limits(body) <= _limits(best):
        return False  # "you can only use one gift card" beside "you can use up to 3 …"
    if _range_cut(body, best):
        return False  # "2 weeks" beside "2–3 weeks": one end of the line's range
    said = _STATES_YES_NO.match(body)
    if said and not _same_answer(said, _STATES_YES_NO.match(MARKER.sub(" ", best))):
        return False  # "The answer is yes" beside "Gold members have their fee waived"
    return _negated(body) == _negated(best) and not _opposed(body, best)


def cited_lines(sentence: str, shown: Sequence[Evidence]) -> list[str]:
    """The ``shown`` lines a model's sentence may restate: those of the passages it cites ("The
    answer is 2 weeks [1]" restates a line of passage 1, not passage 3's "2–3 weeks"); every
    shown line when it cites none."""
    cited = {int(n) for n in MARKER.findall(sentence)}
    return [e.text for e in shown if not cited or e.number in cited]


# Words that narrow or widen what a sentence says (stop words elsewhere, so the share of
# words held does not see them): a sentence restating a line may not add one.
_LIMITS = re.compile(
    r"\b(?:only|just|always|never|every|all|any|must|single|one|two|three|four|five|first|"
    r"last|more|less|most|least|multiple|several)\b",
    re.IGNORECASE,
)


def _limits(text: str) -> frozenset[str]:
    return frozenset(m.lower() for m in _LIMITS.findall(text))


# a figure with its unit: "2 working days", "1,550 g", "30 minutes"
_QUANTITY = re.compile(
    r"(\d+(?:[,.]\d+)*)\s?(?:(?:working|calendar|business|full)\s+)?"
    r"(days?|weeks?|months?|years?|hours?|hrs?|minutes?|mins?|nights?|mAh|mm|cm|km|kg|ml|"
    r"litres?|°[CF]|lm|[LgmhW]|%)(?![A-Za-z])",
    re.IGNORECASE,
)


_TOKEN = re.compile(r"[£$€]?\w[\w,.'’°%-]*")
NEAR_FIGURE = 5  # the words either side of a figure that say what it is of


def _attached_alike(sentence: str, line: str) -> bool:
    """Whether each figure of ``sentence`` that ``line`` holds is said of what the line says
    it of: the words beside it (five either side) share a word with those beside the same
    figure in the line; a figure with no word beside it asks nothing, and one the line does
    not hold (a model's number in its name) is for the other checks. "The repair cost is £10"
    is not "We charge a £10 assessment fee, which is deducted from the repair cost"."""
    said, held = _beside_figures(sentence), _beside_figures(line)
    return all(
        not near or any(near & other for other in held[figure])
        for figure, nears in said.items()
        if figure in held
        for near in nears
    )


def _beside_figures(text: str) -> dict[str, list[frozenset[str]]]:
    """Each figure of ``text`` (its digits) with the word stems beside each place it is at."""
    tokens = _TOKEN.findall(MARKER.sub(" ", text))
    found: dict[str, list[frozenset[str]]] = {}
    for at, token in enumerate(tokens):
        if not _DIGIT.search(token):
            continue
        around = tokens[max(0, at - NEAR_FIGURE) : at] + tokens[at + 1 : at + 1 + NEAR_FIGURE]
        words = _words(" ".join(t for t in around if not _DIGIT.search(t)))
        found.setdefault(re.sub(r"\D", "", token), []).append(words - _ABOUT_THE_ANSWER)
    return found


def _quantities(text: str) -> set[tuple[str, str]]:
    """The figures of ``text`` with their units, as `numbers` writes a figure and a unit in
    the singular: {("2", "day")} for "2 working days"."""
    found = set()
    for match in _QUANTITY.finditer(text):
        unit = match.group(2).lower()
        unit = unit if unit in ("s", "°c", "°f") else unit.rstrip("s")
        found.add((numbers(match.group(1)).pop(), _SAME_UNIT.get(unit, unit)))
    return found


# units written in more than one way: "4 h" and "4 hours" agree
_SAME_UNIT = {"h": "hour", "hr": "hour", "min": "minute", "l": "litre"}


# a range of figures: "2–3 weeks", "43-53 cm", "£30 to £1,000"
_RANGE = re.compile(r"(\d+(?:[,.]\d+)*)\s*(?:[–—-]|to)\s*[£$€]?(\d+(?:[,.]\d+)*)")


def _range_cut(sentence: str, line: str) -> bool:
    """Whether ``sentence`` states one end of a range ``line`` states without the other: "The
    answer is 2 weeks" restating "need 2–3 weeks of short walks" says less than the line."""
    said = numbers(sentence)
    return any(
        (low in said) != (high in said)
        for match in _RANGE.finditer(line)
        for low, high in [tuple(numbers(match.group(i)).pop() for i in (1, 2))]
        if low != high
    )


def _same_answer(said: re.Match[str], shown: re.Match[str] | None) -> bool:
    return shown is not None and shown.group(1).lower() == said.group(1).lower()


def declines(text: str) -> bool:
    """True when ``text`` says it does not know or hands the shopper to a person."""
    return bool(_DECLINES.search(text))


def yes_no_question(question: str) -> bool:
    """ "Is it…", "Can I…", "Does it…": a question answered by yes or no."""
    return bool(_YES_NO_QUESTION.match(question))


def _statement_check(
    sentence: str,
    passages: Sequence[ScoredPassage],
    evidence: Sequence[str],
    *,
    statements: Sequence[str] | None = None,
) -> str | None:
    """The closest statements of ``passages`` (or the given ``statements``) must support
    ``sentence`` and agree with it on polarity."""
    words = _words(sentence) | {f for w in content_words(sentence) for f in FIELD_NAMES.get(w, ())}
    if len(words) < 2:
        return None  # "Yes." / "Thanks!": nothing to check
    closest: list[str] = []
    most = 0
    for statement in _statements(passages) if statements is None else statements:
        shared = len(words & _words(statement))
        if shared > most:
            closest, most = [statement], shared
        elif shared == most and shared:
            closest.append(statement)
    if most < MIN_SHARED_WORDS or most < MIN_SUPPORT * len(words):
        return UNSUPPORTED
    polarity = {_negated(s) for s in closest}
    if len(polarity) > 1:
        chosen = [s for s in closest if any(s in e or e in s for e in evidence)]
        polarity = {_negated(s) for s in chosen} if chosen else polarity
    if polarity != {_negated(sentence)}:
        return WRONG_POLARITY
    if any(_opposed(sentence, s) for s in closest):
        return WRONG_POLARITY
    return None


def _opposed(sentence: str, statement: str) -> bool:
    """One says a word the other says with a negating prefix: "a used tent" against "unused
    tents", "refundable" against "non-refundable"."""
    said, stated = _plain(sentence), _plain(statement)
    return any(
        f"{prefix}{word}" in other and f"{prefix}{word}" not in own
        for own, other in ((said, stated), (stated, said))
        for word in own
        if len(word) > 3 and word not in _NOT_PREFIXED
        for prefix in _NEGATING_PREFIXES
    )


def _plain(text: str) -> frozenset[str]:
    """Lower-case words, hyphens kept ("non-refundable")."""
    return frozenset(re.findall(r"[a-z]+(?:-[a-z]+)*", text.lower()))


def _words(text: str) -> frozenset[str]:
    """The sentence's word stems, negations aside (they are compared as polarity), prices
    without their currency sign ("£289" and "Price (GBP): 289" agree)."""
    words = (w.strip("£€$") for w in content_words(text) if not _NEGATION.fullmatch(w))
    return frozenset(stem(w) for w in words if w)


def _statements(passages: Sequence[ScoredPassage]) -> list[str]:
    return [
        piece
        for hit in passages
        for line in _LINE.findall(hit.passage.text)
        for piece in _SENTENCE_END.split(line)
        if piece.strip()
    ]


def _about(
    sentence: str, passages: Sequence[ScoredPassage], product: str | None
) -> list[ScoredPassage]:
    """The passages a sentence is about: those of the product it names, else the conversation's
    product and every passage that is not another product's, else all of them."""
    titles = [h.passage.title for h in passages if h.passage.kind == "product"]
    named = named_titles(sentence, titles)
    if named:
        return [h for h in passages if h.passage.title in named]
    if product is not None:
        return [h for h in passages if h.passage.kind != "product" or h.passage.title == product]
    return list(passages)


def numbers(text: str) -> set[str]:
    """Numbers as written, thousands separators dropped: "1,550" and "1550" agree."""
    found = set()
    for match in FIGURE.finditer(text):
        value = match.group(0)
        found.add(re.sub(r",(?=\d{3}\b)", "", value).rstrip(".,"))
    return found


def _negated(text: str) -> bool:
    text = _YES_NO.sub(lambda m: "not" if m.group(1).lower() == "no" else "", text)
    return bool(_NEGATION.search(text))
