"""Query texts for the lexical half of retrieval, rewritten for follow-ups.

"how heavy is it?" has no word in common with the tent it is about; the shopper's recent
questions do. A follow-up's lexical query is therefore the question with the recent questions in
front of it, searched beside the question alone, so a change of subject still finds its own
passages (fusion rewards what both rankings agree on).
"""

from __future__ import annotations

from collections.abc import Sequence


def query_texts(question: str, earlier_questions: Sequence[str], *, turns: int = 2) -> list[str]:
    """The question alone, then (when there is history) the question after the recent ones."""
    recent = [q for q in earlier_questions[-turns:] if q.strip()] if turns > 0 else []
    if not recent:
        return [question]
    return [question, " ".join([*recent, question])]
