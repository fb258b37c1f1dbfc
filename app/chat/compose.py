"""Answers composed from the shop's own lines, phrased by templates rather than by the model.

Shown first in the ``verified`` policy (at once, before the model's checked sentences), alone in
the ``extractive`` one, and in the ``generative`` one when nothing the model said passed. Every
quoted line is a verbatim unit of a passage the turn was given, cited by its passage number.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from app.chat.evidence import Evidence, table_cells
from app.index.passage import TABLE_RULE
from app.retrieval.published_index import ScoredPassage

DECLINES = {
    "floor": "I'm sorry, I couldn't find anything about that in the {shop} help pages, so I'd "
    "rather not guess.",
    "no_match": "I'm sorry, I couldn't find that in the {shop} help pages, so I'd rather not "
    "guess.",
    "other_size": "I'm sorry, our pages don't give that for the size you asked about, so I'd "
    "rather not guess.",
    "other_case": "I'm sorry, our pages don't give that for the case you asked about "
    "({missing}), so I'd rather not guess.",
    "unknown_name": "I'm sorry, the {shop} help pages don't mention {missing}, so I'd rather not "
    "guess.",
    "unknown_kind": "I'm sorry, the {shop} help pages don't mention {missing}, so I'd rather not "
    "guess.",
    "unknown_code": "I'm sorry, I couldn't find that product code in the {shop} catalogue, so I'd "
    "rather not guess.",
    "unknown_product": "I'm sorry, I couldn't find the {missing} in the {shop} catalogue, so I'd "
    "rather not guess.",
    "not_listed": "I'm sorry, our product page for the {product} doesn't give that, so I'd rather "
    "not guess.",
    "other_product": "I'm sorry, I couldn't find that for the {missing}, so I'd rather not guess.",
}
OFFER = " Would you like me to put you in touch with a member of our support team?"
PARTIAL = (
    "\n\nOur pages may not say exactly what you asked, so I'd rather not guess beyond these "
    "lines." + OFFER
)


# Declines that still show the closest lines: the pages hold the topic, not the asked case (a
# size or another case of the figure, a place, a detail of the record); a product the shop does
# not sell shows no other's lines.
WITH_CLOSEST_LINES = frozenset({"other_size", "other_case", "not_listed", "unknown_name"})


def decline(reason: str, *, shop: str, product: str = "", missing: str = "") -> str:
    """The honest answer when the shop's pages do not hold what was asked, with a person offered;
    ``product`` is the product asked about, ``missing`` what was not found (a model's or a
    place's name)."""
    if reason == "unknown_name" and not missing:
        reason = "floor"
    template = DECLINES.get(reason, DECLINES["floor"])
    return template.format(shop=shop, product=product, missing=missing) + OFFER


def declined_with_lines(
    declined: str, lines: Sequence[Evidence], passages: Sequence[ScoredPassage]
) -> list[str]:
    """A decline (``declined``, the person offered last) with the closest lines the pages hold
    under it, introduced as such: "…the pages don't give that for the size you asked about… The
    closest I can find is what our product page for the … says: > “Weight (size M): 520 g”"."""
    if not lines:
        return [declined]
    sorry = declined.removesuffix(OFFER)
    return [sorry, "\n\n", *composed_pieces(lines, passages, partial=True), "\n\n" + OFFER.strip()]


def composed_pieces(
    lines: Sequence[Evidence],
    passages: Sequence[ScoredPassage],
    *,
    partial: bool = False,
    stated: str | None = None,
    covered: str = "",
) -> list[str]:
    """An answer made of the shop's own lines, as it streams: where they come from ("Here is
    what our returns page says:"), then each line as a block quote with its citation. Partial
    evidence is introduced as the closest the pages come; ``stated``, the yes or no the first
    line gives plainly (`app.chat.yes_no`), is said first ("No. Here is what …"); ``covered``,
    how a place was read, before the lines ("Our pages cover Dublin under the EU.")."""
    if not lines:
        return []
    pages = list(dict.fromkeys(_page(passages[line.number - 1]) for line in lines))
    if len(pages) > 1:  # lines of two products' pages: each named, none passed off as the other's
        where = _pages_say(pages)
        head = f"The closest I can find is what {where}:" if partial else f"Here is what {where}:"
    else:
        hit = passages[lines[0].number - 1]
        # a table's rows say no more than their cells, and a line that goes on from the
        # heading ("Including Norway, …, Canada …") no more than its words: the section says
        # what they are of
        said = [line for line in lines if line.number == lines[0].number]
        under = hit.passage.heading if any(_of_its_heading(s.text) for s in said) else ""
        head = lead_in(hit, closest=partial, under=under)
    if covered:
        head = f"{covered} {head}"
    if stated and not partial:
        head = f"{stated.capitalize()}. {head}"
    products = [p for p in pages if p != "our help pages"]
    return [head, *quoted(lines, passages, named=len(products) > 1)]


def quoted(
    lines: Sequence[Evidence], passages: Sequence[ScoredPassage], *, named: bool = False
) -> list[str]:
    """Each line as a block quote with its citation; a table's header row with the rows chosen
    under it as that table, its cells as the page has them, cited below it. ``named``: the
    lines are of more than one product, and each product's lines go under its name, in bold
    and outside the quotation ("Which is lighter, the Stormhollow 2 or the 3?": each one's
    "Minimum weight" under its own name)."""
    headers = _header_rows(passages, {line.number for line in lines})
    pieces: list[str] = []
    after_block = True  # the first piece opens a paragraph of its own
    start = 0
    product = ""
    while start < len(lines):
        line = lines[start]
        hit = passages[line.number - 1].passage
        if named and hit.kind == "product" and hit.title != product:
            product = hit.title
            pieces.append(f"\n\n**{product}**")
            after_block = False
        elif named and hit.kind != "product":
            product = ""
        if (line.number, line.text) in headers:
            width = len(table_cells(line.text))
            end = start + 1
            while end < len(lines) and _row_of(lines[end], line.number, width, headers):
                end += 1
            if end > start + 1:
                rule = "|" + " --- |" * width
                rows = "\n".join(row.text for row in lines[start + 1 : end])
                pieces.append(f"\n\n{line.text}\n{rule}\n{rows}\n\n[{line.number}]")
                after_block, start = True, end
                continue
        gap = "\n\n" if after_block else "\n"
        pieces.append(f"{gap}> “{line.text}” [{line.number}]")
        after_block, start = False, start + 1
    return pieces


def _header_rows(passages: Sequence[ScoredPassage], numbers: set[int]) -> set[tuple[int, str]]:
    """The table header rows (a rule under them) of the passages numbered ``numbers``, each
    with its passage's number."""
    found: set[tuple[int, str]] = set()
    for number in numbers:
        rows = [row.strip() for row in passages[number - 1].passage.text.split("\n")]
        found |= {(number, row) for row, below in itertools.pairwise(rows)
                  if row.startswith("|") and TABLE_RULE.match(below)}  # fmt: skip
    return found


def _row_of(line: Evidence, number: int, width: int, headers: set[tuple[int, str]]) -> bool:
    """Whether ``line`` is a row of a table of ``width`` cells in passage ``number``."""
    return (
        line.number == number
        and line.text.startswith("|")
        and len(table_cells(line.text)) == width
        and (line.number, line.text) not in headers
    )


def _page(hit: ScoredPassage) -> str:
    """Which page a line comes from, as far as the lead-in tells them apart: a product's own
    page by its name; the help pages as one."""
    passage = hit.passage
    return f"the {passage.title}" if passage.kind == "product" else "our help pages"


def _pages_say(pages: list[str]) -> str:
    """'our product pages for the Stormhollow 2 Footprint and the Stormhollow 3 Tent say' (for
    the A, the B and the C), or with the help pages: '... and our help pages say'."""
    products = [p for p in pages if p != "our help pages"]
    named = products[0] if len(products) == 1 else f"{', '.join(products[:-1])} and {products[-1]}"
    if len(products) == len(pages):
        return f"our product pages for {named} say"
    page = "page" if len(products) == 1 else "pages"
    return f"our product {page} for {named} and our help pages say"


# a line that does not say what it is of: a table's row, one going on from its heading
_GOES_ON = re.compile(r"^(?:\||(?:Including|Excluding|Except|Plus)\b|[a-z])")


def _of_its_heading(line: str) -> bool:
    """Whether ``line`` says what it is of only under its section's heading."""
    return bool(_GOES_ON.match(line))


def lead_in(hit: ScoredPassage, *, closest: bool = False, under: str = "") -> str:
    """Where the quoted lines come from, in the shopper's terms; ``under``: the heading of a
    help page's section they are under, when they need it said ("Zone 1: UK mainland")."""
    passage = hit.passage
    if passage.kind == "product":
        where = f"our product page for the {passage.title} says"
    elif passage.kind == "faq":
        where = "our help pages say"
    else:
        where = f"our {page_name(passage.title)} page says"
        if under and not passage.opens_page:  # in bold: a heading, not a quotation of a line
            where += f" under **{under}**"
    if closest:
        return f"The closest I can find is what {where}:"
    return f"Here is what {where}:"


def page_name(title: str) -> str:
    """A page's title without the site's name a web page's title carries ("Warranty and
    Repairs | Fernhill Outfitters": "Warranty and Repairs")."""
    return title.split(" | ", 1)[0].strip() or title
