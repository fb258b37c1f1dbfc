"""The shop's help pages by their titles: a question that names only a page's topic ("What is
your warranty?", "whats ur delivery policy") asks what that page says as a whole, which its
introduction says; the introduction is searched first, whatever its cosine."""

from __future__ import annotations

from collections.abc import Sequence

from app.chat.evidence import HELP_KINDS, asks_page
from app.chat.faq_questions import faq_questions
from app.index.passage import Passage


class HelpPages:
    def __init__(self, passages: Sequence[Passage]) -> None:
        first: dict[str, Passage] = {}
        for passage in passages:  # help pages only: a record or an FAQ has no introduction
            if passage.kind in HELP_KINDS and passage.opens_page:
                first.setdefault(passage.document_id, passage)  # its first part, when chunked
        self._introductions = list(first.values())
        self.faqs = faq_questions(passages)  # each FAQ's first passage: its question its title

    def introducing(self, asked: frozenset[str]) -> list[str]:
        """The id of the introduction of the one help page whose topic ``asked`` (a question's
        stems) names and nothing else; [] when none does, or more than one."""
        found = [p.id for p in self._introductions if asks_page(asked, p)]
        return found if len(found) == 1 else []
