"""Query texts for the lexical half of retrieval, rewritten for follow-ups.

"how heavy is it?" has no word in common with the tent it is about; the shopper's recent
questions do. A follow-up's lexical query is therefore the question with the recent questions in
front of it, searched beside the question alone, so a change of subject still finds its own
passages (fusion rewards what both rankings agree on).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Where a second question starts: "…, and how long is its warranty?", "…? What does it weigh?"
_NEXT_QUESTION = re.compile(
    r"(?:,\s*(?:and\s+)?|\s+and\s+|\?\s+)(?=(?:how|what|which|when|where|who|whose|is|are|"
    r"can|could|do|does|will|would|should|has|have)\b)",
    re.IGNORECASE,
)


def query_texts(question: str, earlier_questions: Sequence[str], *, turns: int = 2) -> list[str]:
    """The question alone, then (when there is history) the question after the recent ones."""
    recent = [q for q in earlier_questions[-turns:] if q.strip()] if turns > 0 else []
    if not recent:
        return [question]
    return [question, " ".join([*recent, question])]


def question_parts(question: str) -> list[str]:
    """The questions a message asks, when it asks more than one ("Will the Nightjar 500 fit in
    the Ridgeline 65+10, and what's the warranty on the sleeping bag?" asks two); otherwise
    the message alone. A part needs three words to stand on its own."""
    parts = [p.strip(" ,") for p in _NEXT_QUESTION.split(question) if p.strip(" ,")]
    if len(parts) < 2 or any(len(p.split()) < 3 for p in parts):
        return [question]
    return parts
