"""A question that names only a help page's topic is searched with that page's introduction."""

from __future__ import annotations

from app.chat.evidence import asked_stems
from app.chat.help_pages import HelpPages
from tests.unit.passages import hit


def _page(title: str, section: str, number: int) -> object:
    passage = hit(title, f"{title} {section} text", kind="policy", doc=f"d-{title}",
                  section=section).passage  # fmt: skip
    return passage.__class__(**{**passage.to_json(), "id": f"{title}::{number}"})


def test_the_one_page_a_question_names_gives_its_introduction() -> None:
    pages = HelpPages(
        [
            _page("Warranty and Repairs", "Warranty and Repairs", 0),
            _page("Warranty and Repairs", "Warranty and Repairs", 1),  # the intro's second part
            _page("Warranty and Repairs", "Warranty and Repairs › Claims", 2),
            _page("Delivery Information", "Delivery Information", 0),
            # an HTML page's title carries the shop's name; its opening section has none
            _page("Privacy Notice | Fernhill Outfitters", "Privacy Notice", 0),
        ]
    )
    assert pages.introducing(asked_stems("What is your warranty?")) == ["Warranty and Repairs::0"]
    assert pages.introducing(asked_stems("whats ur delivery policy")) == ["Delivery Information::0"]
    assert pages.introducing(asked_stems("privacy?")) == ["Privacy Notice | Fernhill Outfitters::0"]
    # a question that asks something of the page, or of no page, gets nothing first
    assert pages.introducing(asked_stems("How long does delivery take?")) == []
    assert pages.introducing(asked_stems("Can I call you?")) == []
