"""What the chat service knows of one served version's pages as a whole, worked out once per
version: the words the shop uses (answerability weighs a question's words by their rarity), its
products (a page's SKU or URL, a name in a question, a follow-up's "it") and its help pages
(the introduction of the one a question names)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.chat.any_item import AnyItem
from app.chat.catalog import Catalog
from app.chat.help_pages import HelpPages
from app.chat.vocabulary import Vocabulary
from app.index.passage import Passage


@dataclass(frozen=True)
class PageFacts:
    vocabulary: Vocabulary
    catalog: Catalog
    pages: HelpPages
    items: AnyItem

    @classmethod
    def of(cls, passages: Sequence[Passage]) -> PageFacts:
        return cls(Vocabulary(passages), Catalog(passages), HelpPages(passages), AnyItem(passages))
