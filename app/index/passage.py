"""A passage: the unit that is embedded, retrieved and cited."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

HEADING_JOIN = " › "  # a section's path of headings, as one string: "Contact Us › Phone"
# the rule under a table's header row in a passage's text: "|---|---|" or "| --- | --- |"
TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}")


@dataclass(frozen=True)
class Passage:
    """A chunk of one knowledge document, with everything a citation needs.

    ``text`` is what a shopper is shown; ``embed_text`` (title and section path, then the text) is
    what the embedder saw, and ``hash`` is its digest, the key of the embedding cache.
    """

    id: str
    document_id: str
    source: str
    title: str
    section: str
    url: str
    anchor: str
    kind: str
    text: str
    embed_text: str
    hash: str
    tokens: int

    @property
    def opens_page(self) -> bool:
        """Whether the passage is in its page's introduction, under no heading of its own."""
        return HEADING_JOIN not in self.section

    @property
    def heading(self) -> str:
        """The section's own heading, the last of its path ("Phone")."""
        return self.section.rsplit(HEADING_JOIN, 1)[-1]

    @property
    def citation_target(self) -> str:
        """Where a citation points: the page URL when the shop has one, else the source file."""
        base = self.url or self.source
        return f"{base}#{self.anchor}" if self.anchor and not self.url else base

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Passage:
        return cls(**data)
