"""Passages for the answer checks' unit tests: a few records and pages of a small shop."""

from __future__ import annotations

from app.index.passage import Passage
from app.retrieval.published_index import ScoredPassage


def hit(
    title: str, text: str, *, kind: str = "product", doc: str = "", section: str = ""
) -> ScoredPassage:
    passage = Passage(
        f"p-{title}", doc or f"d-{title}", "s", title, section or title, "", "", kind, text, text,
        "h", 9,
    )  # fmt: skip
    return ScoredPassage(passage, 0.5)


FOOTPRINT = hit(
    "Stormhollow 2 Footprint",
    "SKU: FH-TNT-7090\nPrice (GBP): 35\nSpecs: Weight: 210 g; Dimensions: 210 × 125 cm\n"
    "Compatibility: Fits the Stormhollow 2 Tent only. Does not fit the Stormhollow 3 Tent.",
    doc="products/catalog.jsonl#FH-TNT-7090",
)
TENT = hit(
    "Stormhollow 2 Tent",
    "SKU: FH-TNT-7020\nDescription: A light two-person tent. Pitches in 1.8 m² of ground.\n"
    "Price (GBP): 289\n"
    "Specs: Season: 3-season; Minimum weight: 1,550 g (flysheet, inner and poles); "
    "Pitching: Freestanding; fly-first or all-in-one",
    doc="products/catalog.jsonl#FH-TNT-7020",
)
JACKET = hit(
    "Cairngorm 800 Down Jacket",
    "Price (GBP): 260\nSpecs: Weight: 470 g (size M); Fill: 800 fill power goose down",
)
RETURNS = hit(
    "Returns and refunds",
    "You have 30 days from the day you receive your order to return unused items.\n"
    "For hygiene reasons we can't accept tents that have been pitched outdoors.\n"
    "Standard delivery to Northern Ireland costs £6.95.",
    kind="policy",
)
FAQ = hit(
    "Can I change my order?",
    "Question: Can I change my order?\nAnswer: Yes, within 60 minutes of placing it. After "
    "that, call us on 0113 496 0123.\nCategory: Orders",
    kind="faq",
)
