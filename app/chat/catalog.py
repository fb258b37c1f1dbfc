"""The products of the served version, found by what a shop page or a shopper gives.

A product page passes its product (the SKU, or the page's own URL) with each message; a
shopper names one in words ("the Stormhollow 3") or by code; a follow-up ("how long does it
last?") is about the product the last answer was about. Each of these is looked up here, in
the records the ingestion job indexed (their document id ends in the record's identifier,
their URL is the product page).

The catalog also knows what the records list: the words of each record, and the fields the
shop gives for its products ("Beam distance", "Hydrostatic head"), so a question about a field
other records list and this product's does not can be told apart from one its record answers;
and the model numbers of each product line, so "the Stormhollow 1" is known not to be sold.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise, takewhile
from urllib.parse import urlsplit

from app.chat.evidence import (
    FOR_WHOM,
    field_label,
    kind_readings,
    kind_stems,
    record_category,
    stems,
    units,
)
from app.chat.listing import picked_place
from app.chat.products import (
    NAMED,
    compared,
    cut_asked,
    cuts,
    extends_model,
    kinds_named,
    name_words,
    named_titles,
    names,
    tokens,
    without_cut,
)
from app.index.passage import Passage
from app.retrieval.published_index import ScoredPassage
from app.retrieval.terms import identifiers

logger = logging.getLogger(__name__)

_NUMBERED = re.compile(r"\d")
# A follow-up naming another model by its number alone: "and the 3?", "what about the 65+10 one?"
_OTHER_MODEL = re.compile(r"\bthe\s+(\d[\w+.]*)(?:\s+(?:one|model|version))?\W*$", re.IGNORECASE)
# A follow-up asking about the smallest or the biggest model of a line: "what about the small
# one?", "and the bigger one?"
_SIZED = re.compile(
    r"\b(small|smaller|smallest|little|tiny|big|bigger|biggest|large|larger|largest)\s+"
    r"(?:one|size|model|version)s?\b",
    re.IGNORECASE,
)
_SMALL = frozenset(("small", "smaller", "smallest", "little", "tiny"))
_LEADING_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# A question that points back at something named before: "how heavy is it?", "do they fit?"
_POINTS_BACK = re.compile(r"\b(?:it|its|it's|this|these|those|they|them|their)\b", re.IGNORECASE)
_DESCRIPTION = re.compile(r"^Description: ", re.MULTILINE)
_SIZES = re.compile(r"^Sizes: (.+)$", re.MULTILINE)
# A field is one the shop lists for its products when this many records give it.
_LISTED_BY = 2


@dataclass(frozen=True)
class Product:
    document_id: str  # the record's document: every passage of the product carries it
    title: str
    sku: str
    url: str


@dataclass(frozen=True)
class Focus:
    """The product a turn is about, and whether the question itself names it (then the
    question's own words find it; otherwise retrieval is told its name)."""

    product: Product
    named: bool
    page: bool = False  # the shopper's page gives it: retrieval ranks its passages first


class Catalog:
    def __init__(self, passages: Iterable[Passage]) -> None:
        passages = list(passages)
        self._documents: dict[str, Product] = {}
        self._keys: dict[str, Product] = {}
        self._titles_by_word: dict[str, list[str]] = defaultdict(list)
        self._capitalised: dict[str, frozenset[str]] = {}  # title → its name words, as written
        self._by_title: dict[str, Product] = {}
        # each product's first passage, with the stems of its title's kind and of its last word
        # (`of_kind`), worked out once
        self._kinds: list[tuple[Passage, frozenset[str], frozenset[str]]] = []
        self._names: list[tuple[Product, str, list[str], frozenset[str]]] = []
        # every kind's word: a kind written as one word with another's at its end is of that
        # kind too ("Overtrousers" are trousers)
        lasts = {_kind_words(p.title)[-1].lower() for p in passages if p.kind == "product"}
        for passage in passages:
            if passage.kind != "product" or passage.document_id in self._documents:
                continue
            sku = passage.document_id.rpartition("#")[2] if "#" in passage.document_id else ""
            product = Product(passage.document_id, passage.title, sku, passage.url)
            self._documents[product.document_id] = product
            if product.title not in self._by_title:  # the first product of a title is its
                # own; its name but for whom it is cut, its words and its kind (`written_in`,
                # `part_of`)
                self._by_title[product.title] = product
                self._names.append(
                    (product, FOR_WHOM.sub("", product.title).lower(), tokens(product.title),
                     kind_stems(product.title))
                )  # fmt: skip
            for key in (sku.lower(), _page(product.url), product.document_id.lower()):
                if key:
                    self._keys.setdefault(key, product)
            for word in name_words(product.title):
                self._titles_by_word[word].append(product.title)
            self._capitalised[product.title] = frozenset(
                w
                for w in _CAPITALISED.findall(product.title)
                if w.lower() in name_words(product.title)
            )
            kind = _kind_words(product.title)
            tails = _tails(kind, lasts)
            self._kinds.append(
                (passage, stems(" ".join(kind)) | tails, kind_stems(product.title) | tails)
            )
        self._kind_names = frozenset().union(*(last for _, _, last in self._kinds))
        self._words: dict[str, set[str]] = defaultdict(set)  # document id → its records' stems
        self._described: dict[str, str] = {}  # document id → the passage with its description
        # document id → (passage id, its field names' stems), in the record's order
        self._labelled: dict[str, list[tuple[str, frozenset[str]]]] = defaultdict(list)
        self._sizes: dict[str, frozenset[str]] = {}  # document id → the sizes its record lists
        self._categories: dict[str, str] = {}  # document id → its record's category
        # document id → each line of its record with its passage, in the record's order
        self._lines: dict[str, list[tuple[Passage, str]]] = defaultdict(list)
        for passage in passages:
            if passage.kind != "product":
                continue
            category = record_category(passage.text)
            if category:
                self._categories.setdefault(passage.document_id, category)
            self._words[passage.document_id] |= stems(f"{passage.title} {passage.text}")
            if _DESCRIPTION.search(passage.text):
                self._described.setdefault(passage.document_id, passage.id)
            labels: set[str] = set()
            for unit in units([ScoredPassage(passage, 0.0)]):
                labels |= field_label(unit.text)
                self._lines[passage.document_id].append((passage, unit.text))
            self._labelled[passage.document_id].append((passage.id, frozenset(labels)))
            listed = _SIZES.search(passage.text)
            if listed:
                self._sizes.setdefault(passage.document_id, _sizes(listed.group(1)))
        # a field name's stem → how many products list a field named with it
        self._fields = Counter(
            word
            for record in self._labelled.values()
            for word in frozenset().union(*(labels for _, labels in record))
        )

    def __len__(self) -> int:
        return len(self._documents)

    def find(self, reference: str) -> Product | None:
        """The product a page gives: its SKU, its page URL (any host, query or fragment), its
        record id or its exact title; None when the shop has no such product."""
        reference = reference.strip()
        if not reference:
            return None
        return (
            self._keys.get(reference.lower())
            or self._keys.get(_page(reference))
            or self._by_title.get(reference)
        )

    def cuts_named(self, text: str) -> list[Product]:
        """The cuts of one product ``text`` names alike ("the Scafell Mid boots": the men's and
        the women's), when it names no one product; [] otherwise."""
        named = self.titles_said(text)
        return [self._by_title[t] for t in named] if cuts(named) else []

    def titles_said(self, text: str) -> list[str]:
        """Every title ``text`` names by its distinctive name words, one or several alike ("the
        cairngorm down jacket": the Cairngorm 650 and the Cairngorm 800 Down Jacket)."""
        return named_titles(text, self._sharing(set(tokens(text))))

    def _sharing(self, said: set[str]) -> list[str]:
        """The titles holding one of the words ``said`` (a title once for each it holds)."""
        return [t for word in said for t in self._titles_by_word.get(word, ())]

    def common_name(self, text: str) -> str:
        """The name the cuts ``text`` names alike share ("the scafell mid boots": "Scafell Mid
        Waterproof Walking Boot" of the men's and the women's); "" when it names no cuts."""
        titles = [p.title for p in self.cuts_named(text)]
        if not titles:
            return ""
        shared = takewhile(
            lambda words: len(set(words)) == 1, zip(*(t.split() for t in titles), strict=False)
        )
        return " ".join(words[0] for words in shared)

    def written_in(self, text: str) -> list[tuple[Product, str]]:
        """The products whose title ``text`` writes whole, but for whom it is cut ("Fits under
        the Torridon 3L Waterproof Jacket (FH-JKT-1042)": the men's and the women's), each
        with the name as written there; any case."""
        lowered = text.lower()
        return [(product, name) for product, name, _, _ in self._names if name in lowered]

    def sizes(self, product: Product) -> frozenset[str]:
        """The sizes ``product``'s record lists, upper case ("XL", "UK 11", "REGULAR"); empty
        when it lists none, or lists ranges ("M (UK 6–8.5)", "3–4 years") that a size asked
        in other terms may fall in."""
        return self._sizes.get(product.document_id, frozenset())

    def document(self, document_id: str) -> Product | None:
        return self._documents.get(document_id)

    def titled(self, title: str) -> Product | None:
        return self._by_title.get(title)

    def named(self, text: str) -> Product | None:
        """The one product ``text`` names, by code or by its distinctive name words."""
        coded = {p for code in identifiers(text) if (p := self._keys.get(code)) is not None}
        if len(coded) == 1:
            return coded.pop()
        said = set(tokens(text))
        titles = self._sharing(said)
        named = named_titles(text, titles)
        if named:
            return self._by_title[named[0]] if len(named) == 1 else None
        # a line's name said alone ("what colours does the skiddaw come in?"), when no other
        # product's name shares a word with the text and the line is that one product's; or
        # a line's name that several products share, with the kind of one of them ("the
        # merino base layer": not the Merino Hiker Sock), when every product sharing a word
        # with the text is of that line
        only = set(titles)
        lined = [t for t in only if _line_name(t) in said]
        if len(only) == 1 and lined:
            return self._by_title[lined[0]]
        of_kind = [t for t in lined if kinds_named(text) & set(tokens(t))]
        if len(lined) == len(only) and len(of_kind) == 1:
            return self._by_title[of_kind[0]]
        return None

    def titles_named(self, text: str) -> frozenset[str]:
        """Every title ``text`` names by its distinctive name words, whole or in part, one of
        them capitalised as the title writes it ("The Scafell Mid and Ben Nevis boots fit true
        to size": both cuts of the Scafell Mid and the Ben Nevis Leather Mountain Boot; not
        "Backpacks and pack rain covers", a kind of the Ridgeline Pack Rain Cover)."""
        said = set(tokens(text))
        near = set(self._sharing(said))
        written = set(_CAPITALISED.findall(text))
        return frozenset(
            t for t in near if names(text, t) >= NAMED and written & self._capitalised[t]
        )

    def kind_names(self) -> frozenset[str]:
        """The stems of the kinds of product the shop sells, as their titles end ("boot",
        "fleec", "jacke", "tent")."""
        return self._kind_names

    def of_kind(self, words: frozenset[str], cut: str | None = None) -> list[Passage]:
        """The first passage of each product of a kind, in the catalogue's order: its title
        holds every one of ``words`` (word stems: "tent" for "tents") and ends in one of them
        ("boots": the Ben Nevis Leather Mountain Boot, not the Beeswax Leather Boot Wax); with
        ``cut`` ("womens", as `cut_asked` gives it), only the products cut for it."""
        return [
            record
            for record, said, last in self._kinds
            if words <= said and last & words and (cut is None or cut_asked(record.title) == cut)
        ]

    def titled_with(self, words: frozenset[str]) -> list[Passage]:
        """The first passage of each product whose title holds every one of ``words`` (word
        stems), in the catalogue's order ("gas": the Gas Canisters)."""
        return [record for record, said, _ in self._kinds if words <= said]

    def cut_for(self, cut: str) -> list[Passage]:
        """The first passage of each product cut for ``cut`` ("kids", "womens", as
        `cut_asked` gives it: the Little Fell Kids' Waterproof Jacket for "kids"), in the
        catalogue's order."""
        return [record for record, _, _ in self._kinds if cut_asked(record.title) == cut]

    def lines(self, document_id: str) -> list[tuple[Passage, str]]:
        """Each quotable line of a product's record (its fields split apart: "Minimum weight:
        1,550 g (flysheet, inner and poles)"), with its passage, in the record's order."""
        return self._lines.get(document_id, [])

    def holding(self, product: Product, asked: frozenset[str]) -> list[str]:
        """The ids of ``product``'s passages with a field the question asks for by name
        ("Price (GBP)" for asked stems holding "price"), in the record's order."""
        record = self._labelled.get(product.document_id, ())
        return [passage_id for passage_id, labels in record if labels & asked]

    def kinds(self, product: Product) -> list[frozenset[str]]:
        """The stems of the kinds ``product`` is of, the most telling first (`kind_readings`:
        its title's kind, "Stove", with the category its record gives, "Stoves & cookware";
        that category; the title's kind)."""
        return kind_readings(product.title, self.category(product))

    def category(self, product: Product) -> str:
        """The category ``product``'s record gives ("Socks"); "" when it gives none."""
        return self._categories.get(product.document_id, "")

    def fields_of(self, product: Product) -> frozenset[str]:
        """The stems of the field names ``product``'s record gives ("pric", "weigh")."""
        return frozenset().union(
            *(labels for _, labels in self._labelled.get(product.document_id, ()))
        )

    def compared_with(self, question: str, focus: Focus | None, earlier: str | None) -> list[str]:
        """The titles a comparison that names one product (``focus``, by its name or its model's
        number) and points back at another compares ("is it warmer than the 800?" after the
        Cairngorm 650: the 650 and the 800), the one pointed back at (``earlier``, the last
        turn's product or the shopper's page's) first; or that points back at ``focus``, not
        named, and names others ("what's the difference between this and the Torridon?" on
        the Skiddaw's page), ``focus`` first; [] for any other question."""
        if focus is None or not _POINTS_BACK.search(question):
            return []
        if not focus.named:  # "what's the difference between this and the Torridon?" on the
            # Skiddaw jacket's page: the Torridon jackets, the kind of the product shown
            kind = frozenset({_kind_words(focus.product.title)[-1].lower()})
            others = [
                t
                for t in compared(question, self._by_title, loosely=True, kinds=kind)
                if t != focus.product.title
            ]
            if others:
                return [focus.product.title, *others]
        before = self.document(earlier) if earlier else None
        if before is None or before == focus.product or self.compared(question):
            return []
        return [before.title, focus.product.title]

    def compared(self, text: str) -> list[Product]:
        """The products ``text`` (a question that compares) compares: two or more it names in
        full ("Which is lighter, the Stormhollow 2 tent or the Stormhollow 3?") or by their
        line's name ("the torridon and the skiddaw jackets"); [] when it names fewer."""
        titles = compared(text, self._by_title, loosely=True)
        return [self._by_title[t] for t in titles] if len(titles) > 1 else []

    def describing(self, product: Product) -> list[str]:
        """The id of ``product``'s passage with its description, if its record has one."""
        found = self._described.get(product.document_id)
        return [found] if found else []

    def field_words(self, asked: Iterable[str]) -> list[str]:
        """The ``asked`` word stems that name fields the shop lists for several products
        ("beam" of "Beam distance")."""
        return [w for w in asked if self._fields[w] >= _LISTED_BY]

    def unlisted(self, product: Product, asked: Iterable[str]) -> list[str]:
        """The ``asked`` word stems that name fields the shop lists for other products ("beam"
        of "Beam distance"), when ``product``'s record holds none of them; [] otherwise."""
        fields = self.field_words(asked)
        own = self._words.get(product.document_id, set())
        return [] if any(w in own for w in fields) else fields

    def unknown_model(self, text: str) -> str | None:
        """A product line named with a model number the shop does not sell ("Stormhollow 1"
        when it sells the Stormhollow 2 and 3), as ``text`` gives it; None otherwise."""
        said = tokens(text)
        for word, number in pairwise(said):
            if _NUMBERED.search(word) or not _NUMBERED.search(number):
                continue
            models = {
                w for t in self._titles_by_word.get(word, ()) for w in name_words(t)
                if _NUMBERED.search(w)
            }  # fmt: skip
            if models and number not in models and not extends_model(number, models):
                found = re.search(rf"\b{re.escape(word)}\W+{re.escape(number)}\b", text, re.I)
                return found.group(0) if found else f"{word} {number}"
        return None

    def unsold(self, text: str) -> str | None:
        """A product ``text`` names that the shop does not sell, made of a model it sells and a
        kind of product sold in that line under another model: "Stormhollow 3 footprint" when
        the shop sells the Stormhollow 3 Tent and the Stormhollow 2 Footprint only. As ``text``
        gives it; None when every product it names this way is sold."""
        said = tokens(text)
        for word, number, kind in zip(said, said[1:], said[2:], strict=False):
            if _NUMBERED.search(word) or not _NUMBERED.search(number):
                continue
            line = [tokens(t) for t in self._titles_by_word.get(word, ())]
            models = [t for t in line if number in t]
            kinds = {t[t.index(word) + 2] for t in line if t.index(word) + 2 < len(t)}
            if models and kind in kinds and not any(kind in t for t in models):
                pattern = rf"\b{re.escape(word)}\W+{re.escape(number)}\W+{re.escape(kind)}\b"
                found = re.search(pattern, text, re.IGNORECASE)
                return found.group(0) if found else f"{word} {number} {kind}"
        return None

    def focus(
        self,
        question: str,
        *,
        given: str | None = None,
        earlier: Sequence[str | None] = (),
        before: Sequence[str | None] = (),
        listed: Sequence[str] = (),
    ) -> Focus | None:
        """What the turn is about: the product the question names; else the one it picks of
        ``listed`` (the products the last answer listed, in its order: "the first one", "the
        kids' one"); else the product the page gives (an unknown one is logged and ignored);
        else the latest of ``earlier`` (the products of the conversation's earlier turns,
        newest first) still in the catalog; else, when the question points back at one ("how
        heavy is it?"), the latest of ``before`` (those of the turns before the conversation
        turned to a help page's topic)."""
        named = self.named(question)
        if named is not None:
            return Focus(named, named=True)
        picked = self._picked(question, [p for d in listed if (p := self.document(d))])
        if picked is not None:
            return Focus(picked, named=False)
        if given:
            product = self.find(given)
            if product is not None:  # "is this warmer than the 500?" on the 300's page: the 500
                other = self.other_model(question, product) or self.part_of(question, product)
                return (
                    Focus(other, named=False) if other else Focus(product, named=False, page=True)
                )
            logger.info("the page's product %r is not in the served catalog; ignored", given[:120])
        for document_id in (*earlier, *(before if _POINTS_BACK.search(question) else ())):
            product = self.document(document_id) if document_id else None
            if product is not None:
                other = (
                    self.other_model(question, product)
                    or self.sized_model(question, product)
                    or self.other_cut(question, product)
                    or self.part_of(question, product)
                )
                return Focus(other or product, named=False)
        return None

    def part_of(self, question: str, product: Product) -> Product | None:
        """The one product of ``product``'s range that the question asks about by its kind
        alone ("What does the footprint cost?" after the Stormhollow 2 Tent: the Stormhollow 2
        Footprint; "the rain cover" of a Ridgeline pack: the Ridgeline Pack Rain Cover, which
        names no model); None when the question points back at ``product`` ("which size cover
        do I need for it?") or names its kind, or the shop sells no one such product."""
        asked = stems(question)
        if _POINTS_BACK.search(question) or kind_stems(product.title) & asked:
            return None
        own = tokens(FOR_WHOM.sub("", product.title))
        if not own:
            return None
        model = name_words(" ".join(own[:-1]))  # its range and model: "stormhollow", "2"
        found = []
        for other, _, words, kind in self._names:
            if other is product or not kind or not kind <= asked or not words:
                continue
            numbered = any(any(c.isdigit() for c in w) for w in words)
            if model <= set(words) or (words[0] == own[0] and not numbered):
                found.append(other)
        return found[0] if len(found) == 1 else None

    @staticmethod
    def _picked(question: str, listed: list[Product]) -> Product | None:
        """The one of ``listed`` the question picks by its place in the list, or by a word of
        its name that none of the others has ("the kids' one", "the 700R")."""
        place = picked_place(question, len(listed))
        if place is not None:
            return listed[place]
        words = [set(tokens(p.title)) for p in listed]
        shared = set.intersection(*words) if words else set()
        said = set(tokens(question))
        owning = [p for p, own in zip(listed, words, strict=True) if said & (own - shared)]
        return owning[0] if len(owning) == 1 else None

    def other_model(self, question: str, product: Product) -> Product | None:
        """Another model of ``product``'s line that a short follow-up asks about by its number
        alone ("How heavy is the Stormhollow 2 Tent?" → "and the 3?": the Stormhollow 3 Tent),
        of the same kind (no Stormhollow 3 Tent for "and the 3?" after the Stormhollow 2
        Footprint); None when the question asks no such thing or the shop sells no such one."""
        asked = _OTHER_MODEL.search(question.strip())
        if asked is None or len(question.split()) > 6:
            return None
        number = asked.group(1).lower()
        own = tokens(product.title)
        models = [i for i, word in enumerate(own) if _NUMBERED.search(word)]
        if not models or models[0] == 0 or number in own:
            return None
        line, kind = own[models[0] - 1], set(own[models[0] + 1 :])
        sold = [t for t in self._titles_by_word.get(line, ()) if {number, *kind} <= set(tokens(t))]
        return self._by_title[sold[0]] if len(sold) == 1 else None

    def sized_model(self, question: str, product: Product) -> Product | None:
        """The smallest or the biggest model of ``product``'s line, told by the number of their
        titles, that a short follow-up asks about ("How long does the 230 g canister last?" →
        "what about the small one?": the Fernhill 100 g Gas Canister; it may be ``product``
        itself); None when it asks no such thing or the line has one model."""
        asked = _SIZED.search(question)
        if asked is None or len(question.split()) > 8:
            return None
        own = tokens(product.title)
        at = next((i for i, word in enumerate(own) if _NUMBERED.search(word)), None)
        if at is None:
            return None
        line = [
            (float(number.group()), p)
            for title, p in self._by_title.items()
            if len(words := tokens(title)) == len(own)
            and words[:at] + words[at + 1 :] == own[:at] + own[at + 1 :]
            and (number := _LEADING_NUMBER.match(words[at])) is not None
        ]
        if len(line) < 2:
            return None
        small = asked.group(1).lower() in _SMALL
        _, picked = (min if small else max)(line, key=lambda pair: pair[0])
        return picked

    def other_cut(self, question: str, product: Product) -> Product | None:
        """Another cut of ``product`` that a short follow-up asks about by whom it is cut for
        alone ("Is the Scafell Mid OK with crampons?" → "what about the women's one?": the
        Scafell Mid Waterproof Walking Boot Women's); None when the question names no cut,
        ``product``'s own, or one the shop does not sell of it."""
        asked = cut_asked(question)
        if asked is None or len(question.split()) > 8 or asked == cut_asked(product.title):
            return None
        own = without_cut(product.title)
        sold = [
            p
            for title, p in self._by_title.items()
            if title != product.title and cut_asked(title) == asked and without_cut(title) == own
        ]
        return sold[0] if len(sold) == 1 else None


_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z]+\b")


def _line_name(title: str) -> str:
    """The name of ``title``'s product line: its first distinctive word that is no model
    number ("skiddaw" of "Skiddaw 2.5L Packable Waterproof Jacket"); "" when it has none."""
    return next(
        (w for w in tokens(title) if w in name_words(title) and not _NUMBERED.search(w)), ""
    )


def _kind_words(title: str) -> list[str]:
    """The words of ``title`` but for whom it is cut ("Men's"): its name and its kind."""
    return FOR_WHOM.sub("", title).split() or [""]


def _tails(words: list[str], lasts: set[str]) -> frozenset[str]:
    """The stems of the kinds ``words``' last word ends with, as a compound's head ("trousers"
    of "Overtrousers"), from ``lasts`` (every kind's word); empty when none."""
    last = words[-1].lower() if words else ""
    return frozenset().union(
        *(stems(kind) for kind in lasts if len(kind) >= 3 and last != kind and last.endswith(kind))
    )


def _sizes(listed: str) -> frozenset[str]:
    """The sizes of a record's "Sizes:" value, upper case; none when one is a range."""
    sizes = [re.sub(r"\s+", " ", size.strip()).upper() for size in re.split(r"[;,]", listed)]
    if any(not size or re.search(r"[(–-]|\d\s*(?:CM|ML)\b", size) for size in sizes):
        return frozenset()
    return frozenset(sizes)


def _page(url: str) -> str:
    """A product page's path, without host, query, fragment or trailing slash, in lower case:
    the same page whichever host or tracking parameters it is reached with."""
    if "/" not in url:
        return ""
    path = urlsplit(url if "//" in url else f"//{url}").path.rstrip("/").lower()
    return path if len(path) > 1 else ""
