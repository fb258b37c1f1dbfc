"""The shop's FAQ that a message asks in other words.

Shoppers rarely ask in an FAQ's own words: "help me cancelling purchase 3707955617" asks the FAQ
"Can I change or cancel my order?" and shares one word with it, and its cosine with the FAQ's
whole passage (question and answer) is no higher than with the Delivery page's. The embedder was
trained on pairs of questions that mean the same, so the message's cosine with each FAQ's own
question finds the one it asks. That FAQ is searched first (`app.chat.turn_search`), the opening
of its answer is ranked as the shop's answer (`app.chat.evidence`), and the verdict takes it as
answering what was asked, the checks on names, codes, sizes and prices aside
(`app.chat.answerability`): the shopper's words for it are not the shop's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.chat.answerability import names_in
from app.chat.evidence import asked_stems, counts, stems
from app.index.passage import Passage
from app.retrieval.line_vectors import LineVectors

# A message this close to an FAQ's own question (cosine, the question's own vector) asks it
# (chosen on the tuning parts: the shop's labelled questions and shoppers' everyday requests).
PARAPHRASE_COSINE = 0.65
# FAQ questions this much less near than the nearest are as near (the embedder's cosine does not
# tell "how long" from "claim")
NEAR_MARGIN = 0.05
_FRAMING = stems("how long much many take takes time cost costs")


def faq_questions(passages: Sequence[Passage]) -> list[Passage]:
    """Each FAQ's first passage (its question is its title), in the pages' order."""
    first: dict[str, Passage] = {}
    for passage in passages:
        if passage.kind == "faq":
            first.setdefault(passage.document_id, passage)
    return list(first.values())


async def paraphrased_faq(
    message: str,
    vector: np.ndarray,
    faqs: Sequence[Passage],
    lines: LineVectors,
    *,
    threshold: float = PARAPHRASE_COSINE,
    kinds: frozenset[str] = frozenset(),
) -> str | None:
    """The id of the FAQ passage whose own question ``message`` (``vector``: its own,
    normalised) is closest to, when within ``threshold`` and the two name the same names;
    None otherwise (or with no FAQ). A name tells near questions apart that the vectors do
    not: "How much is delivery to Jersey?" is not "How much is delivery to the Scottish
    Highlands and Islands?". The questions' vectors are the line cache's: embedded once per
    served version. ``kinds`` are the stems of the kinds of product the shop sells ("fleec",
    "jacke", "boot"): a message naming kinds the FAQ's question names none of asks about other
    things ("can i wash my fleece in the machine?" is not "Can I wash my down jacket or
    sleeping bag?")."""
    if not faqs or threshold <= 0:
        return None
    questions = await lines.vectors([p.title for p in faqs])
    cosines = questions @ vector
    top = float(np.max(cosines))
    # of questions about as near, the one holding more of what the message asks, not of how it
    # frames it: "how long does a warranty claim take?" is "How do I make a warranty claim?",
    # not "How long is the warranty on my product?"
    asked = asked_stems(message) - _FRAMING
    best = max(
        (i for i in range(len(faqs)) if cosines[i] >= top - NEAR_MARGIN),
        key=lambda i: (len(asked & stems(faqs[i].title)), float(cosines[i])),
    )
    title = faqs[best].title
    if float(cosines[best]) < threshold or _names(message) != _names(title):
        return None
    if counts(title) and not counts(message):
        return None  # "Can I use more than one discount code?" is not "do you have a code?"
    said, asked = stems(message) & kinds, stems(title) & kinds
    if said and asked and not said & asked:
        return None
    return faqs[best].id


def _names(text: str) -> frozenset[str]:
    return frozenset(name.lower() for name in names_in(text))
