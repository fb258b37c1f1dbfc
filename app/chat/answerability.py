"""Does the shop's evidence hold what was asked, for the product and case that were asked?

A relevance floor lets through the near miss: the Cairngorm jacket's weight is published for size
M, the shopper asks about XL; the shipping page lists zones, the shopper names a country it never
mentions. The chosen evidence is judged against the question's specifics instead:

- a product code the question gives must belong to a passage of the turn;
- a size the question asks about must be the size the evidence line states, when it states one,
  and the size the record's line for the asked field states ("Weight: 275 g per shoe (UK 8)"),
  and one the product's record lists ("Sizes: Regular": no long one); and so must any other case
  the line's figure is stated for: the batteries, what it includes, the setting, a quantity
  (`app.chat.conditions`: "on alkaline AAs" against "(lithium AA)", "with a 10w charger");
- a product line the question names must be sold in the model it names (the shop sells the
  Stormhollow 2 and 3, the shopper asks about the Stormhollow 1);
- a name the question gives (a place, a scheme, a brand: a capitalised word that is not the
  question's first, or a three-letter acronym in lower case: "nhs") must appear in the shop's
  pages, spelt whole, or be a place they cover by a region they name (`app.chat.places`:
  Belfast, Northern Ireland; one they hold only under "the rest of the world" is not said to be
  served: its lines are the closest the pages come), and so must a standard or rating it names
  by code ("does it meet EN 343?", "is it IPX6?");
- a field the question asks about, of a kind the shop lists for other products ("how far does
  the beam reach?"), must be in the record of the product asked about (or of one of the cuts it
  names alike: the men's and the women's), or in a policy or FAQ page of the turn (which may
  answer it);
- a question that asks what something costs must be shown a line that states an amount, or
  that it is free ("Pegs: 12 aluminium Y-pegs." does not say what replacement pegs cost); one
  that asks how long something takes or lasts, a line that states a time ("how long does it
  take to inflate?" is not answered by "Inflate with the pump sack");
- a question that names a help page's topic ("return", "warranty") must be shown lines that
  hold it, or lines of a page whose title does ("can i return it from canada?" after delivery
  there is not answered by the Delivery page's lines on Canada);
- a question that points back at what was talked about and names no product ("is it true to
  size?" after a size table's row) is not answered by a line about products the conversation
  never named ("The Scafell Mid and Ben Nevis boots fit true to size"): partial;
- and, unless the answer is what the pages' structure gives (the FAQ whose own question the
  message asks in other words, `app.chat.faq_questions`; the table whose column it asks or
  the section whose heading it names, `app.chat.help_pages`), the evidence must hold the
  question's own words (besides the product name and chat shorthand the pages never use; a
  misspelt word as the pages spell it; a follow-up's read with the question it goes on from,
  when that holds more of them and the question's own words are not all new to the lines: "is
  it noisy?" after the R-value asks something new), weighed by how rare each is in the shop's
  pages, not counting the names of the products asked about (or of those the question names
  alike: "the cairngorm down jacket", the 650 and the 800) nor the kind of product something
  is asked of ("are your boots vegan?"): "Can I hire a tent?" is not answered by a line about
  pitching a tent, which holds "tent" but not the telling "hire". Evidence that holds too
  little of them is *partial*: the shopper is shown the closest lines as such, and offered a
  person.

What the shopper tells of themselves ("I'm at uni in Sheffield.") is not judged as asked
(`app.chat.asking`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from app.chat.asking import asking_part, told_places_matter
from app.chat.catalog import Catalog, Product
from app.chat.conditions import other_case
from app.chat.dates import (
    day_words,
    named_days,
    named_weekdays,
    spanned_day_names,
    states_day,
    weekday_words,
)
from app.chat.evidence import (
    CHAT_SHORTHAND,
    FIELD_NAMES,
    FRAMING,
    HOW_MUCH,
    Selection,
    asked_stems,
    asks_comparison,
    differing,
    elliptical,
    field_label,
    kind_stems,
    plain_words,
    stem,
    stems,
    tells_which_one,
    units,
    worth_asked,
)
from app.chat.listing import asks_for_list
from app.chat.products import GENERIC, NAMED, PRODUCT_CODE, name_words, names
from app.chat.vocabulary import Vocabulary
from app.retrieval.published_index import ScoredPassage

# "size XL", "in XXL", "UK 11", "EU 44", "size 10", "an L", "what about a 16?"; typed in lower
# case too ("size m", "uk 11", "in xl"), but for one letter after "in" or an article ("in s" is
# no size)
_SIZE = re.compile(
    r"\b(?:(?i:size)\s+(?i:(XXS|XS|S|M|L|XL|XXL|XXXL|\d{1,2}(?:\.5)?))\b"
    r"|in\s+(XXS|XS|S|M|L|XL|XXL|XXXL|\d{1,2}(?:\.5)?)\b"
    r"|\b(?:an?|the)\s+(XXS|XS|S|M|L|XL|XXL|XXXL)\b(?!')"
    r"|\b(?:an?|the)\s+(\d{1,2}(?:\.5)?)(?=\s*[?!.]|\s*$)"
    r"|(?i:(UK|EU|US))\s?(\d{1,2}(?:\.5)?)\b|(?i:(XXS|XS|XL|XXL|XXXL))\b)",
)
# a clothing size in words: "in a large", "more of a medium though", "the extra large?"
_SIZE_WORD = re.compile(
    r"\b(?:in|an?|the)\s+(?:size\s+)?(extra[\s-]large|extra[\s-]small|large|medium|small)"
    r"(?=\s+(?:size|though|then)\b|\s*[?!.,]|\s*$)",
    re.IGNORECASE,
)
_SIZE_WORDS = {
    "extra large": "XL",
    "extra small": "XS",
    "large": "L",
    "medium": "M",
    "small": "S",
}
# "in the long size", "in Long?": a sleeping bag's or a mat's length
_LENGTH = re.compile(
    r"\bin\s+(?:the\s+|a\s+)?(regular|long|short)"
    r"(?=\s+(?:size|length|version|one)\b|\s*[?.!,]|\s*$)",
    re.IGNORECASE,
)
# a size a line states a figure for: "(M)", "(UK 8)", "(size 12)", "(7–8 years)"
_STATED_SIZE = re.compile(
    r"\((?:[^)]*?\b)?(?:size\s+)?"
    r"(XXS|XS|S|M|L|XL|XXL|XXXL|\d{2}\s(?:Regular|Long|Short)|Regular|Long|Short"
    r"|(?:UK|EU|US)\s?\d{1,2}(?:\.5)?K?|(?<=[Ss]ize\s)\d{1,2}(?:\.5)?"
    r"|\d{1,2}\s?[–-]\s?\d{1,2}\s(?:years|yrs))\b"
)
# a child's size by age: "in the 11-12 years", "11 to 12 yrs"
_AGE_SIZE = re.compile(r"\b(\d{1,2})\s*(?:[–-]|to)\s*(\d{1,2})\s*(?:years?|yrs?)\b", re.I)
# a name that only says what kind of thing is meant: "those Campingaz-style cartridges"
_IN_THE_STYLE = re.compile(r"\b\w+-(?:style|type|like)\b", re.I)
# the way of paying a message asks about: "can i pay wiv clearpay", "paying by cheque"
_PAID_WITH = re.compile(
    r"\bpa(?:y|ying|id)\s+(?:with|wiv|by|using|via|through|thru)\s+(?:a\s+|an\s+|my\s+)?"
    r"([a-z][a-z0-9]+)",
    re.I,
)
# trousers by waist and leg: "a 36 long", "34 short", "32in regular"
_WAIST_LEG = re.compile(r"\b(\d{2})\s*(?:in(?:ch)?\s*)?(regular|long|short)\b", re.I)
# when an order is placed, up to what is said of it: "placed after 14:00 on a Friday, at the
# weekend or on a bank holiday (are dispatched …)"
_PLACED = re.compile(r"\b(?:placed|ordered)\b.*?(?=\b(?:are|is|will|get|gets)\b|[.;]|$)", re.I)
# asking about placing an order (on a day): what the days an order is placed on answer
_ORDERING = re.compile(r"\b(?:order|ordered|ordering|place|placed|placing|buy|bought)\b", re.I)
# asking whether a size is still to be had: "have you still got …", "is it still available in …"
_STILL_HAD = re.compile(
    r"\b(?:still\s+(?:got|have|available|in\s+stock|do)|(?:have|got)\s+(?:you|u)\s+(?:still\s+)?got"
    r"|in\s+stock\s+in|available\s+in|any\s+left\s+in|left\s+in)\b",
    re.IGNORECASE,
)
# a child's shoe size: "in a 12K", "UK 10K"
_KIDS_SIZE = re.compile(r"\b(?:UK\s?)?(\d{1,2}(?:\.5)?)K\b", re.IGNORECASE)
_SIZES_FIELD = stems("Sizes")
# a capitalised word, or one with a capital inside ("iPhone", "easyJet") wherever it is
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]+|[A-Z]{2,})\b|\b([a-z]+[A-Z][a-zA-Z]*)\b")
# Capitalised words that are no name: the shop's own vocabulary and a sentence's I.
_NOT_NAMES = frozenset(
    """I UK EU GB VAT FAQ OK PDF ID PIN SMS ASAP DIY Hi Hello Please Thanks Can Could Do Does
    Is Are What When Where Which Who Why How Will Would Should Have Has My Your You""".split()  # noqa: SIM905
)


_WORD = re.compile(r"[a-z0-9]+")
# Evidence holding less than this share of the question's own words, weighed by their rarity,
# is partial (fitted on the tuning part of the labelled shop questions; a setting).
MIN_COVERAGE = 0.3


@dataclass(frozen=True)
class Verdict:
    answerable: bool
    # why not: "unknown_code", "unknown_product", "other_product", "other_size", "other_case",
    # "unknown_name", "unknown_kind", "not_listed", "no_match"
    reason: str | None = None
    partial: bool = False  # answerable, but the lines may not hold exactly what was asked
    missing: str = ""  # what was not found: the product model, the field's word, the name


def judge(
    question: str,
    selection: Selection,
    passages: Sequence[ScoredPassage],
    vocabulary: Vocabulary,
    *,
    catalog: Catalog | None = None,
    product: Product | None = None,
    min_coverage: float = MIN_COVERAGE,
    near: frozenset[str] = frozenset(),
    earlier: str = "",
    said: str = "",
    topics: frozenset[str] = frozenset(),
) -> Verdict:
    """Whether ``selection`` (chosen from ``passages``) answers ``question`` as asked;
    ``product`` is the product the turn is about, when one is known; ``near``: the question's
    words (lower case) the lines hold in other words (`app.chat.near_words`); ``earlier``: the
    conversation's last question, which a follow-up goes on from ("I want to cancel my order" →
    "I placed it two hours ago, is it too late?"): the lines may hold the question's words
    read together with it; ``said``: the shopper's own words, before the reading step read a
    place as its region (`app.chat.reading`), when they differ."""
    if not selection.lines:
        return Verdict(False, "no_match")
    everything = " ".join(f"{h.passage.title} {h.passage.text}" for h in passages).lower()
    for code in PRODUCT_CODE.findall(question):
        if code.lower() not in everything:
            return Verdict(False, "unknown_code")
    model = catalog.unknown_model(question) if catalog is not None else None
    if model:
        return Verdict(False, "unknown_product", missing=model)
    # whether a size is still to be had is answered by the sizes the record lists or has left,
    # whichever they are ("still got the Trailrunner 4 in a UK 9?": "UK 7; UK 8.5")
    asked = set() if _STILL_HAD.search(question) else _asked_sizes(question)
    if asked:
        stated = {s for line in selection.lines for s in _stated_sizes(line.text)}
        if stated and not stated & asked:
            return Verdict(False, "other_size")
        # the field asked for is stated for another size, though the chosen line names the
        # asked one ("weigh in UK 11?": "Weight: 275 g per shoe (UK 8)", not "Sizes: … UK 11")
        fields = asked_stems(question)
        given = {
            s
            for unit in units(passages)
            if field_label(unit.text) & fields
            for s in _stated_sizes(unit.text)
        }
        if given and not given & asked:
            return Verdict(False, "other_size")
        # a size the product's record does not list ("the Fellsman in the long size": Regular),
        # nor any other cut's the question names alike ("the scafell mid boots in uk 12": the
        # men's lists it, the women's does not)
        listed = catalog.sizes(product) if catalog is not None and product is not None else None
        alike = catalog.cuts_named(question) if catalog is not None else []
        if catalog is not None and alike and (product is None or product in alike):
            listed = frozenset().union(*(catalog.sizes(cut) for cut in alike))
        if listed and not listed & asked:
            return Verdict(False, "other_size", missing=sorted(asked)[0])
    case = _other_case(question, selection, vocabulary, _names_written(question, catalog))
    if case:
        return Verdict(False, "other_case", missing=case)
    kind = _row_of_another_kind(question, selection, catalog) if catalog is not None else None
    if kind:
        return Verdict(False, "other_case", missing=kind)
    # a day of the year asked of lines that state other days ("the Collection Point on 24
    # December?": "We are closed on 25 December, 26 December and 1 January")
    days = named_days(question)
    dated = [line.text for line in selection.lines if days and named_days(line.text)]
    if dated and not any(states_day(t, d) for t in dated for d in days):
        return Verdict(False, "other_case", missing=day_words(question))
    # a day of the week asked of lines that state other days ("do you do sunday delivery?":
    # "Monday to Friday", "Saturday delivery costs £9.95")
    # (a day by its name: "need it for the weekend" may say when, not ask of a day)
    weekdays = named_weekdays(asking_part(question), weekend=False)
    # not the days an order is placed on ("Orders placed … at the weekend … are dispatched on
    # the next working day": no weekend delivery)
    on_days = {
        day for line in selection.lines for day in named_weekdays(_PLACED.sub(" ", line.text))
    }
    # unless ordering on a day is what is asked ("If I order on a Sunday, when is it
    # dispatched?"); and when only the days an order is placed on are named, they do not state
    # the day asked for something else ("Do you do Sunday delivery?")
    named_any = {day for line in selection.lines for day in named_weekdays(line.text)}
    days_stated = named_any if _ORDERING.search(question) else on_days
    if weekdays and named_any and not weekdays & days_stated:
        return Verdict(False, "other_case", missing=weekday_words(asking_part(question)))
    # a day of the week a span holds is no name the pages never mention ("on a Tuesday":
    # "Monday to Saturday")
    known = set(_WORD.findall(everything)) | spanned_day_names(everything)
    # what the shopper tells of themselves is not asked ("I'm at uni in Sheffield."), unless it
    # says where the thing asked about is to go ("I live in Iceland. Do you ship there?")
    asking = asking_part(question)
    told_apart = asking_part(question, clauses=True)  # "I'm at uni in Sheffield, do you …?"
    plain = PRODUCT_CODE.sub(" ", question if told_places_matter(question) else told_apart)
    plain = _IN_THE_STYLE.sub(" ", plain)  # "Campingaz-style cartridges": no Campingaz asked
    standard = unknown_standard(plain, everything, vocabulary)
    if standard:
        return Verdict(False, "unknown_name", missing=standard)
    # a place the pages hold only under "the rest of the world" may not be served: the closest
    loose = vocabulary.places.by_catch_all(said or question)
    for place, _ in vocabulary.places.resolved(plain):  # named by its region (the reading's)
        plain = plain.replace(place, " ")
    # a name the shop's pages mention anywhere is no unknown; a place typed in lower case is
    # as much a name ("do u ship to canada?")
    for name in dict.fromkeys([*names_in(plain), *vocabulary.places.mentioned(plain)]):
        if not all(w in known or vocabulary.holds(w) for w in _WORD.findall(name.lower())):
            return Verdict(False, "unknown_name", missing=name)
    acronym = next((w for w in _ACRONYM.findall(plain.lower()) if w not in known), None)
    if acronym and acronym not in _CHAT_ACRONYMS:  # a name in lower case: "an nhs discount?"
        return Verdict(False, "unknown_name", missing=acronym.upper())
    paid = next((w for w in _PAID_WITH.findall(plain) if not vocabulary.holds(w.lower())), None)
    if paid:  # a way of paying in lower case that the pages never name: "pay with clearpay?"
        return Verdict(False, "unknown_name", missing=paid)
    unheard = _unheard_kind(plain, known, vocabulary)
    if unheard:  # no other product's lines under it: "Stock: In stock" is not a salomon's
        return Verdict(False, "unknown_kind", missing=unheard)
    # the product asked about, or each cut the question names alike ("the scafell mid boots":
    # the men's and the women's)
    asked_of = [product] if product is not None else catalog.cuts_named(question) if catalog else []
    if catalog is not None:  # a field none of them lists is not listed
        missing = [_unlisted(asking, p, selection, passages, catalog) for p in asked_of]
        if missing and all(missing):
            return Verdict(False, "not_listed", missing=missing[0])
    other = _another_products_line(question, selection, passages, catalog, product)
    if other is not None:
        return Verdict(False, "other_product", missing=other.title)
    if product is None and catalog is not None and _of_others(asking, earlier, selection, catalog):
        return Verdict(True, partial=True)  # "is it true to size?": the boots' "fit true to size"
    if asks_price(question) and not any(_MONEY.search(e.text) for e in selection.shown):
        return Verdict(True, partial=True)  # "how much do replacement pegs cost?": "Pegs: 12"
    if asks_time(asking) and not any(_TIME.search(e.text) for e in selection.shown):
        return Verdict(True, partial=True)  # "how long does it take to inflate?": its care line
    if asks_measure(asking) and not any(_COUNTED.search(e.text) for e in selection.shown):
        return Verdict(True, partial=True)  # "the hydrostatic head of its membrane?": materials
    if asks_when(asking) and not any(_WHEN.search(e.text) for e in selection.shown):
        return Verdict(True, partial=True)  # "when's it back in XS?": "out of stock in XS"
    if _other_topic(asking, selection, passages, topics):
        return Verdict(True, partial=True)  # "can i return it from canada?": delivery lines
    if loose:  # "do you ship to Iceland?": the pages' rest-of-the-world lines, as the closest
        return Verdict(True, partial=True, missing=loose[0])
    if _offer_not_shown(plain, selection, vocabulary, near):
        return Verdict(True, partial=True)  # "is there a Fernhill app …?": tracking lines
    if selection.answers_as_given:  # an FAQ asked in other words, a table, a named section
        return Verdict(True)
    # what the lines hold only inside another product's name they do not hold, in any words
    foreign = _in_other_names(question, selection, passages, catalog) if catalog else frozenset()
    if foreign:
        selection = replace(selection, held_words=selection.held_words - foreign)
        near = frozenset(w for w in near if stem(w) not in foreign)
    # the asking sentences, or the whole message: what the shopper tells may be what the lines
    # are about ("My parcel says delivered but it isn't here. What do I do?"); the name of what
    # is asked about is no word asked of it ("is the torridon jacket made in the uk?"), nor
    # are the names of those it names alike ("the cairngorm down jacket": the 650 and the 800),
    # nor the kind of product it asks something of ("are your boots vegan?")
    several = catalog.titles_said(question) if catalog is not None and product is None else []
    titles = (*(p.title for p in asked_of), *several)
    covered = functools.partial(
        coverage, selection=selection, vocabulary=vocabulary, near=near, titles=titles
    )
    # a kind of product is what is asked of only when no product is: with one, its own kind is
    # in its name, and another kind is a part asked about ("when do I swap its cartridge?")
    kinds = catalog.kind_names() if catalog is not None and not asked_of else frozenset()
    held = max(covered(q, kinds=kinds) for q in {asking, question})
    # none of its own: it asks something new, unless it goes on from it ("and if I put it
    # under the Airloft?" after the Foamlite's R-value) of a product it names or the same one
    # ("what about the small one?" asks of another, unnamed)
    goes_on = elliptical(question) and not (
        tells_which_one(question)
        and catalog is not None
        and catalog.named(question) is None
        and (product is None or catalog.sized_model(question, product) is not product)
    )
    if held < min_coverage and earlier and (held > 0 or goes_on):
        # read on, a kind of product counts (the one the conversation is on: "how many litres
        # will it last?" after the filter bottle's cartridge), but not the product the question
        # before named ("What's the R-value of the Foamlite Z?" → "and if I put it under the
        # Airloft?")
        before = catalog.named(earlier) if catalog is not None else None
        again = (*titles, before.title) if before is not None else titles
        held = max(held, covered(f"{earlier} {question}", titles=again))
    if held < min_coverage:
        return Verdict(True, partial=True)
    return Verdict(True)


def _other_topic(
    asking: str, selection: Selection, passages: Sequence[ScoredPassage], topics: frozenset[str]
) -> bool:
    """Whether ``asking`` names a help page's topic (``topics``: the words of the help pages'
    titles: "returns", "warranty") that no line shown holds, nor the title of any page they come
    from: the lines are another page's ("can i return it from canada?" after delivery there:
    the Delivery page's lines on Canada). Words are matched by their first six letters
    ("returning", "returns"), which tell "complaint" from "completely"."""
    named = {w[:_TOPIC] for w in plain_words(asking) if len(w) >= _TOPIC} & {
        t[:_TOPIC] for t in topics if len(t) >= _TOPIC
    }
    named -= _NO_TOPIC
    if not named or not selection.shown:
        return False
    texts = [f"{passages[e.number - 1].passage.title} {e.text}" for e in selection.shown]
    held = {w[:_TOPIC] for t in texts for w in plain_words(t)}
    return not named & held


_TOPIC = 6
# the words of help pages' titles that name no topic of their own, or that a question uses of
# something else ("delivered to Jersey", "change my mind")
_NO_TOPIC = frozenset(
    w[:_TOPIC]
    for w in """information fernhill outfitters orders method methods notice delivery delivered
    changing contact""".split()  # noqa: SIM905
)


def _other_case(
    question: str, selection: Selection, vocabulary: Vocabulary, written: frozenset[str]
) -> str | None:
    """The question's words for a case the answer's figure is not stated for: the best line's
    case, or that of a field asked that only lines of another case give ("how many hours on
    alkaline AAs?": "Battery life: … (lithium AA) …", though the best line, "Batteries: 2 × AA
    (alkaline, lithium or NiMH)", names alkaline). A field one line gives for the asked case
    is given ("Burn time" of the 450 g canister's record, beside the stove's with a 230 g one).
    No word of a product's name is a case: the product's, nor ``written``, those of the
    products the question writes (the "3L" of "the Torridon 3L Waterproof Jacket")."""
    named = _named(selection.product or "") | written

    def case_of(text: str) -> str | None:
        return other_case(question, text, vocabulary.alternatives, named=named)

    best = selection.lines[0]
    case = case_of(best.text)
    if case:
        return case
    asked = asked_stems(question)
    by_field: dict[frozenset[str], list[str | None]] = {}
    for line in selection.lines:
        label = field_label(line.text)
        if label & asked:  # the best line is of the asked case
            by_field.setdefault(label, []).append(None if line is best else case_of(line.text))
    return next((c[0] for c in by_field.values() if all(c)), None)


def _row_of_another_kind(question: str, selection: Selection, catalog: Catalog) -> str | None:
    """The message's word for the kind of product it asks about, when the answer is a table's
    and its best row (the first with a figure, under the header) is for another kind and for
    none the message names, nor that of the product asked about ("how much to replace the zip
    on my sleeping bag?": "| Tent zip slider replacement | £10 |"); None otherwise. A row
    naming no kind ("| Replace pocket zip | £18 |") is for any."""
    if not selection.lines[0].text.startswith("|"):
        return None
    row = next(
        (e.text for e in selection.lines if e.text.startswith("|") and _DIGIT.search(e.text)), ""
    )
    kinds = catalog.kind_names()
    of = stems(row.strip("|").split("|")[0]) & kinds
    # the kinds the message names (not a verb's participle: "covered" is no Rain Cover), and
    # that of the product it is about
    said = plain_words(question)
    asked = [w for w in said if stem(w) in kinds and not w.endswith("ed")]
    own = stems(selection.product or "") & kinds
    if not of or not asked or of & ({stem(w) for w in asked} | own):
        return None
    at = said.index(asked[0])
    kind = said[at - 1 : at + 1] if at else []  # "sleeping bag", as the products are named
    return " ".join(kind) if kind and catalog.of_kind(stems(" ".join(kind))) else asked[0]


_DIGIT = re.compile(r"\d")


def _names_written(question: str, catalog: Catalog | None) -> frozenset[str]:
    """The stems of the names of the products ``question`` writes whole ("Does the Cairngorm
    800 fit under the Torridon 3L Waterproof Jacket?": both), as `_named` cuts them."""
    if catalog is None:
        return frozenset()
    return frozenset().union(*(_named(name) for _, name in catalog.written_in(question)))


# A question that asks what something costs, and a line that says: an amount, or that it is free.
# Asked for an amount ("what does it cost?", "price?"), not whether there is a charge ("Do you
# refund the delivery charge?") nor what "charge" means of a battery.
_PRICE_ASKED = re.compile(
    r"\bwhat\b[^?]*\b(?:costs?|price|fees?)\b(?!\s+match)|\bprice\s*\?",
    re.I,
)
_MONEY = re.compile(
    r"[£€$]|\b(?:GBP|EUR|USD|pence)\b|\bfree\b|\bno\s+(?:extra\s+)?(?:charge|cost|fee)\b"
    r"|\bat\s+no\s+(?:extra\s+)?cost\b|\bPrice\b",
    re.I,
)


def asks_time(question: str) -> bool:
    """Whether ``question`` asks how long something takes or lasts ("how long does it take to
    inflate?", "how soon will it arrive?", "how many days do I have?"), not how long a thing
    is ("how long is the mat?")."""
    return bool(_TIME_ASKED.search(question))


_TIME_ASKED = re.compile(
    r"\bhow\s+long\s+(?:does|do|did|will|would|should|can|until|till|til|before|have|has)\b"
    r"|\bhow\s+(?:soon|quickly)\b|\bhow\s+many\s+(?:seconds|minutes|hours|days|nights|weeks"
    r"|months|years)\b",
    re.I,
)
# a stated time: "2–3 working days", "About 8 minutes", "4 h", "within 24 hours", "next working
# day", "straight away", "two years"
_TIME = re.compile(
    r"(?:\b\d[\d.,]*(?:\s*[–-]\s*\d[\d.,]*)?\s*"
    r"|\b(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|few|several)\s+)"
    r"(?:working\s+|calendar\s+|full\s+)?"
    r"(?:s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|nights?|weeks?|months?|years?)\b"
    r"|\b(?:same|next)\s+(?:working\s+)?day\b|\bovernight\b|\bstraight\s+away\b"
    r"|\bimmediately\b|\binstantly\b|\bas\s+soon\s+as\b|\buntil\b|\bexpir",
    re.I,
)


def asks_when(question: str) -> bool:
    """Whether ``question`` asks when something happens ("when's it back in stock?", "any idea
    when that's coming back?"), not what happens when something does ("what if it breaks
    when I'm away?")."""
    return bool(_WHEN_ASKED.search(question))


_WHEN_ASKED = re.compile(
    r"(?:^|[.!?,]\s*|\b(?:idea|know|tell\s+me|sure|say)\s+)when(?:'s|\s+(?:is|are|will|would|"
    r"does|do|did|can|should|that's|it's|they're))\b",
    re.I,
)
# what tells when: a stated time, a day, a clock time, a month or a date, or the event it
# happens on ("payment is taken when the item is dispatched", "once it's back with us")
_WHEN = re.compile(
    rf"{_TIME.pattern}|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?"
    r"|january|february|march|april|may|june|july|august|september|october|november|december"
    r"|today|tomorrow|tonight)\b|\b\d{1,2}(?::\d{2}|\s?[ap]m)\b"
    r"|\b(?:when|once|after|before|by|on\s+dispatch|if|unless|every|up\s+to)\b",
    re.I,
)


def asks_measure(question: str) -> bool:
    """Whether ``question`` asks a measure, which only a figure answers ("how wide is it?",
    "what's the hydrostatic head of …?", "how heavy is it in grams?"); not a time nor a price,
    asked and checked on their own."""
    return bool(_MEASURE_ASKED.search(question))


_MEASURE_ASKED = re.compile(
    r"\bhow\s+(?:many|wide|far|heavy|big|tall|high|deep|thick|warm|cold)\b"
    r"|\bhow\s+much\s+(?:does|do|will|would)\s+(?:it|they|the\s+\w+(?:\s+\w+)?)\s+weigh\b"
    r"|\bin\s+(?:mm|cm|grams?|kg|litres?|metres?|millimetres?|centimetres?)\b"
    r"|\bwhat(?:'s|’s|\s+is)\s+the\s+(?:[\w-]+\s+){0,3}(?:rating|weight|capacity|length|"
    r"width|height|volume|temperature|head|r-value|lumens)\b",
    re.I,
)
# a figure, in digits or in words ("sleeps two", "a two-person tent")
_COUNTED = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|single|double|"
    r"dozen|hundred)\b",
    re.I,
)


def asks_price(question: str) -> bool:
    """Whether ``question`` asks what something costs ("how much is it?", "what does next-day
    delivery cost?"), not whether there is a charge nor whether the shop matches a price."""
    return bool(HOW_MUCH.search(question) or _PRICE_ASKED.search(question))


def _another_products_line(
    question: str,
    selection: Selection,
    passages: Sequence[ScoredPassage],
    catalog: Catalog | None,
    product: Product | None,
) -> Product | None:
    """The product the question names (or, naming none, the one the conversation is about:
    ``product``), when the best line is another product's record line that does not name it
    ("can I wash the Ridgeline 45 Backpack in the washing machine?" answered by a sleeping
    bag's "Care: Machine wash at 30°C"), or a help page's line about another product ("What
    hipbelt waist sizes does that one fit?" of a pack, answered by the size guide's "To wear
    the Torridon 3L Waterproof Overtrousers over Kinder trousers, waist 30–32 normally takes
    S"): that line is not about the asked product. A line naming it ("Takes the Beacon 400
    Rechargeable Battery Pack") may answer."""
    if catalog is None:
        return None
    asked = catalog.named(question) or product
    if asked is None:
        return None
    best = selection.lines[0]
    passage = passages[best.number - 1].passage
    if passage.document_id == asked.document_id:
        return None
    if asks_comparison(question) and passage.document_id in {
        p.document_id for p in catalog.compared(question)
    }:  # "which is brightest: the Beacon 400, the 700R or the Glow?": any of them may answer
        return None
    if passage.kind != "product":
        about = catalog.named(best.text)
        if about is None or about.document_id == asked.document_id:
            return None
    # the line naming it, not another product's title sharing its name ("Little Fell Kids'
    # Waterproof Jacket" is no line on the Little Fell Kids' Waterproof Walking Boot)
    naming = best.text if passage.kind == "product" else f"{passage.title} {best.text}"
    if names(naming, asked.title) >= 0.5:
        return None
    return asked


# what points back at the thing talked about: "is it true to size?", "do they come in blue?"
_IT = re.compile(r"\b(?:it|its|they|them|their|this|that|these|those)\b", re.I)


def _of_others(asking: str, earlier: str, selection: Selection, catalog: Catalog) -> bool:
    """Whether a question that points back at what was talked about, naming no product, is
    answered by a line about a product the conversation never named: after a size table's
    row, "is it true to size?" is not the boots' "The Scafell Mid and Ben Nevis boots fit true
    to size"."""
    if not _IT.search(asking) or catalog.titles_named(asking):
        return False
    about = catalog.titles_named(selection.lines[0].text)
    said = [catalog.named(earlier), *catalog.cuts_named(earlier)]
    return bool(about) and not about & (
        catalog.titles_named(earlier) | {p.title for p in said if p}
    )


def _in_other_names(
    question: str, selection: Selection, passages: Sequence[ScoredPassage], catalog: Catalog
) -> frozenset[str]:
    """The word stems ``selection``'s lines hold only inside another product's name, but for
    its kind: "Fits under the Torridon 3L Waterproof Jacket" says nothing of whether the
    Cairngorm 800 asked about is waterproof, though it says which jacket it fits under. A
    product the question names (or the one it is about) keeps its words, named in part too
    ("the squeeze filter" of the ClearFlow Squeeze Water Filter, "Ben Nevis boots")."""
    named = {  # by its code, or the one the turn is about; by name, in part too (below)
        p.document_id
        for p in (catalog.named(question), catalog.titled(selection.product or ""))
        if p is not None
    }
    others: set[str] = set()
    rest: list[str] = []
    for line in selection.lines:
        text = line.text
        for product, name in catalog.written_in(text):
            if product.document_id not in named and names(question, product.title) < NAMED:
                others |= stems(name) - kind_stems(product.title)
                text = re.sub(re.escape(name), " ", text, flags=re.IGNORECASE)
        page = passages[line.number - 1].passage
        rest.append(f"{page.title} {page.section} {text}")
    return frozenset(others) - stems(" ".join(rest))


def coverage(
    question: str,
    selection: Selection,
    vocabulary: Vocabulary,
    *,
    near: frozenset[str] = frozenset(),
    titles: Sequence[str] = (),
    kinds: frozenset[str] = frozenset(),
) -> float:
    """The share of the question's own words (not the name of the product the lines are
    about, nor of those in ``titles``: the products the turn asks about; nor the ``kinds`` of
    product, word stems, when it asks something else of them: "are tents windproof?") that the
    chosen lines hold, by spelling or, for the words in ``near``, by meaning, each weighed by
    its rarity in the shop's pages; 1.0 when it has none."""
    named = set(_named(selection.product or "")).union(*(_named(t) for t in titles))
    total = held = 0.0
    # "what's the torridon like?": asks nothing but what it is, which its description holds
    asked = PRODUCT_CODE.sub(" ", worth_asked(question) or question)
    for place, _ in vocabulary.places.resolved(asked):  # held by its region (the reading's)
        asked = asked.replace(place, " ")
    if _MUCH.search(asked):  # "how much is it?", "how much does it weigh?": a figure's framing
        named.add("much")
    if asks_comparison(question):  # "what's the difference between …": how they differ
        named |= differing()
    asked = _POINTING.sub(" ", asked)  # "the second one", "at the moment": no content asked
    asked = _TAKING.sub(" ", asked)  # "can I take it on a plane?": the plane is asked
    asked = _ROUGHLY.sub(" ", asked)  # "roughly how much?": how exact an answer is wanted
    asked = _MINE.sub(" my ", asked)  # "my old walking boots": which of the shopper's own
    asked = _UNHARMED.sub(" ", asked)  # "wash it without wrecking the down": how, not what
    named |= {stem(w) for w in _HOW.findall(asked)}  # "how many litres": a figure's framing
    said = [w for w in dict.fromkeys(plain_words(asked)) if stem(w) not in named]
    compounds = _compounds(asked, named, vocabulary)
    if any(stem(w) not in kinds for w in said):  # "are tents windproof?": asked of tents
        named |= kinds
    for word in said:
        own = vocabulary.spelled(word)
        if own in named or own in FRAMING:
            continue  # the product's name; what frames the asking ("tell me about")
        if own in _WANTING and not _held(word, own, selection, near):
            continue  # what the shopper needs is asked only where the lines say it
        if len(word) < 4 and not vocabulary.knows(own):
            continue  # chat shorthand the pages never use ("u", "ffs", "mum")
        if _REFERENCE.fullmatch(word) and not vocabulary.knows(own):
            continue  # the shopper's order or invoice number ("cancel order 00123842")
        weight = vocabulary.weight(own)
        total += weight
        partner = compounds.get(word)
        if partner is not None and not _held_alike(partner, vocabulary, selection, near):
            continue  # "hand luggage": the lines' "Hand wash" holds no hand of it
        if _held(word, own, selection, near) or _SHIPPED.get(own, "") in selection.held_words:
            held += weight
    return held / total if total else 1.0


def _compounds(asked: str, named: set[str], vocabulary: Vocabulary) -> dict[str, str]:
    """Each word of ``asked`` that stands with the next one in a phrase the shop's pages use
    ("hand luggage", "air travel"), mapped to the other, unless one of them is ``named`` (the
    stems of the names of the products asked about) or in any product's name (whose names the
    reading of products judges), or qualifies rather than names (`_naming`): the two are one
    thing asked, held together or not at all."""
    flat = " ".join(_WORD.findall(asked.lower()))
    words = plain_words(asked)
    found: dict[str, str] = {}
    for first, second in itertools.pairwise(words):
        pair = f"{first} {second}"
        if (
            first != second
            and _naming(first)
            and _naming(second)
            and not (vocabulary.titles_hold(first) or vocabulary.titles_hold(second))
            and not {stem(first), stem(second)} & named
            and f" {pair} " in f" {flat} "
            and vocabulary.holds_phrase(pair)
        ):
            found.setdefault(first, second)
            found.setdefault(second, first)
    return found


def _naming(word: str) -> bool:
    """Whether ``word`` may be part of a thing's name ("hand" of "hand luggage"), not a word
    that qualifies or frames one ("properly waterproof", "the new one", "still get")."""
    return word.isalpha() and not word.endswith("ly") and stem(word) not in _QUALIFYING


# words that qualify or frame what they stand beside rather than name a thing with it
_QUALIFYING = (
    frozenset(
        stem(w)
        for w in """new old still get got after before more less much many full same other own
    good best very just even also""".split()  # noqa: SIM905
    )
    | FRAMING
)


def _held_alike(
    word: str, vocabulary: Vocabulary, selection: Selection, near: frozenset[str]
) -> bool:
    """Whether the chosen lines hold ``word``, or a word it extends or that extends it
    ("tumble dryer": the lines' "tumble dry")."""
    own = vocabulary.spelled(word)
    return _held(word, own, selection, near) or any(
        len(h) >= 3 and (own.startswith(h) or h.startswith(own)) for h in selection.held_words
    )


def _held(word: str, own: str, selection: Selection, near: frozenset[str]) -> bool:
    """Whether the chosen lines hold the question's ``word`` (``own``: its stem as the pages
    spell it): by spelling, by the field a shopper's word names ("accessories": Compatibility),
    or by meaning (``near``)."""
    held = selection.held_words
    return (
        own in held
        or bool(set(FIELD_NAMES.get(word, ())) & held)
        or word in near
        or _unnegated(word) in held
    )


def _unnegated(word: str) -> str:
    """The stem of what ``word`` negates by its prefix ("uncomfortable": "comfortable", which
    "Comfort temperature" holds), or "" for any other word."""
    return stem(word[2:]) if word.startswith("un") and len(word) >= 7 else ""


# what the shopper needs or wants frames what is asked ("before I need a new one", "do I need
# to …?"), unless the lines say what is needed (word stems)
_WANTING = frozenset({stem("need"), stem("want")})


# shipping a thing is delivering it: "can you ship the PowerCell to Canada?" is answered by the
# lines on where it can be sent and delivered (word stems)
_SHIPPED = {stem(w): stem("delivered") for w in ("ship", "ships", "shipped", "shipping")}


# "how many litres", "how long will it take": a figure's framing
_HOW = re.compile(r"\bhow\s+(many|often|long)\b", re.I)
# "how much" asking a figure of what follows the verb ("how much does it weigh?"), or alone
# ("how much?" of the product talked about), not an amount of the word after it ("how much
# weight can it carry?": "much" is asked)
_MUCH = re.compile(
    r"\bhow\s+much(?:\s+(?:is|are|was|were|does|do|did|would|will|and|or)\b|\s*[?!.,]*\s*$"
    r"|\s*,)",
    re.I,
)
# what points at something said before ("both", "each of them": the products named) or frames
# the time of asking, which no line holds
_POINTING = re.compile(
    r"\b(?:first|second|third|last|other)\s+one\b|\bat\s+the\s+moment\b|\bright\s+now\b"
    r"|\bcurrently\b|\bboth\b|\beach\s+of\s+them\b",
    re.I,
)
# how exact an answer the shopper wants, which no line holds
_ROUGHLY = re.compile(
    r"\b(?:roughly|approximately|approx|ballpark|more\s+or\s+less|give\s+or\s+take)\b", re.I
)
# which of the shopper's own things is meant ("my old boots"), which no line holds
_MINE = re.compile(r"\bmy\s+(?:old|new|current|existing)\b", re.I)
# a harm the shopper wants to avoid in doing what is asked ("how do I wash it without wrecking
# the down?"): the way to do it is asked
_UNHARMED = re.compile(
    r"\b(?:without|w/o|w/out)\s+(?:wrecking|ruining|damaging|spoiling|harming|breaking)\b", re.I
)
# taking or bringing the thing talked about somewhere, which is what is asked of it
_TAKING = re.compile(
    r"\b(?:take|bring)\s+(?=(?:it|them|this|these|that|those|the|my|a|an|your|our)\b)", re.I
)
# a run of digits no figure is written as: an order, invoice or account number
_REFERENCE = re.compile(r"\d{5,}")


def _named(product: str) -> frozenset[str]:
    """The stems of a product's name (its distinctive words as the products module cuts them)."""
    return frozenset({w[:5] for w in name_words(product)} | stems(product))


_GENERIC = frozenset(stem(w) for w in GENERIC)


def _asked_of(question: str, product: Product) -> frozenset[str]:
    """The question's own word stems, not the product's name nor its category, nor a word used
    as a verb ("if i drop it in a stream": no Heel-to-toe drop asked for)."""
    plain = PRODUCT_CODE.sub(" ", question)
    done = {stem(w) for found in _DONE.findall(plain.lower()) for w in found if w}
    done |= {stem(w) for w in _BACK.findall(plain.lower())}
    return frozenset(stem(w) for w in plain_words(plain)) - stems(product.title) - _GENERIC - done


# a word after a subject or "to" is what someone does: "i drop", "you charge", "to fit"; so
# is a past participle after "be" or "still" ("is it still covered?": no Rain cover asked for)
_DONE = re.compile(r"\b(?:i|you|u|we|they|to)\s+([a-z]+)|\b(?:is|are|be|been|still)\s+([a-z]+ed)\b")
# "back" of a verb of coming or sending ("when's it coming back in XS?": no Back length asked)
_BACK = re.compile(
    r"\b(?:com(?:e|es|ing)|go(?:es|ing)?|sen[dt]\w*|get\w*|got|bring\w*|brought|put\w*"
    r"|tak(?:e|es|ing))\s+(?:(?:it|them|this|these)\s+)?(back)\b"
)


def _unlisted(
    question: str,
    product: Product,
    selection: Selection,
    passages: Sequence[ScoredPassage],
    catalog: Catalog,
) -> str:
    """The question's word naming a field the shop lists for other products but not in
    ``product``'s record, when the question asks for a detail the chosen lines do not give;
    "" otherwise."""
    own_words = _asked_of(question, product)
    fields = frozenset(catalog.field_words(own_words))
    if not _about_a_field(fields, product, selection, passages):
        return ""
    unlisted = catalog.unlisted(product, sorted(own_words - _not_records(passages)))
    return unlisted[0] if unlisted else ""


def _about_a_field(
    fields: frozenset[str],
    product: Product,
    selection: Selection,
    passages: Sequence[ScoredPassage],
) -> bool:
    """Whether the question asks for a product's detail that the chosen lines do not give: the
    best line is a record's (a warranty or care question answered from a policy page is not
    judged by the records), and not a line of the product's own record that holds one of the
    asked ``fields`` ("what runtime on low?" answered by its "Runtime: 10 h (low)" line; a
    line holding only the question's other words does not give the field: "a strobe or SOS
    mode for emergencies?" is not answered by the runtime modes)."""
    best = selection.lines[0]
    passage = passages[best.number - 1].passage
    if passage.kind != "product":
        return False
    if passage.document_id != product.document_id:
        return True
    return not fields & stems(best.text)


def _not_records(passages: Sequence[ScoredPassage]) -> frozenset[str]:
    """The word stems of the turn's pages that are no product's record: a policy or an FAQ may
    answer what a record does not list ("is a failed zip covered?": the warranty page)."""
    held: set[str] = set()
    for hit in passages:
        if hit.passage.kind != "product":
            held |= stems(f"{hit.passage.title} {hit.passage.text}")
    return frozenset(held)


def _asked_sizes(question: str) -> set[str]:
    found = {m.group(1).upper() for m in _LENGTH.finditer(question)}
    found |= {f"UK {m.group(1)}K" for m in _KIDS_SIZE.finditer(question)}
    found |= {f"{young}-{old} YEARS" for young, old in _AGE_SIZE.findall(question)}
    found |= {_SIZE_WORDS[w.lower().replace("-", " ")] for w in _SIZE_WORD.findall(question)}
    for waist, leg in _WAIST_LEG.findall(question):  # the waist is the size the record lists
        found |= {waist, f"{waist} {leg.upper()}"}
    for match in _SIZE.finditer(question):
        sized, letter, lettered, numbered, system, number, bare = match.groups()
        letter = letter or lettered or numbered
        if system:
            found.add(f"{system.upper()} {number}")
        else:
            size = (sized or letter or bare).upper()
            found.add(size)
            if size[0].isdigit():  # "size 13": UK 13 where the pages give sizes by system
                found |= {f"{scale} {size}" for scale in ("UK", "EU", "US")}
    return found


def _stated_sizes(line: str) -> set[str]:
    return {_size_key(m.group(1)) for m in _STATED_SIZE.finditer(line)}


def _size_key(size: str) -> str:
    """A size as the asked ones are written: "UK 8", "12", "7-8 YEARS"."""
    size = re.sub(r"\s*[–-]\s*", "-", re.sub(r"\s+", " ", size)).upper()
    return re.sub(r"\bYRS$", "YEARS", size)


def _unheard_kind(question: str, known: set[str], vocabulary: Vocabulary) -> str | None:
    """A word before the kind of thing the question asks whether the shop sells or offers, when
    the pages hold the kind but not that word, in any spelling near it ("do u stock salomon trail
    shoes?": shoes, not salomon ones; "same-day courier delivery within Leeds"): the pages
    cannot say the shop has that one. Names in lower case, which `names_in` does not see; a kind
    the pages do not hold may be their synonym ("a shop in Leeds" for their store) and is left
    to the other checks."""
    words = _kind_words(question)

    def heard(word: str) -> bool:
        return word in known or vocabulary.knows(vocabulary.spelled(word))

    if len(words) < 2 or not heard(words[-1]):
        return None
    return next((w for w in words[:-1] if w.isalpha() and not heard(w)), None)


def _offer_not_shown(
    question: str, selection: Selection, vocabulary: Vocabulary, near: frozenset[str]
) -> bool:
    """Whether the question asks whether the shop offers a thing ("is there a Fernhill app I
    can download to track my orders?") and no line shown holds the thing's word ("app"), in
    any spelling near it: the lines are about something else the question names (tracking)."""
    words = _kind_words(question, _THERE_IS)
    if not words or not words[-1].isalpha():
        return False
    thing = words[-1].lower()
    if thing in _NO_THING:
        return False  # "is there any way I can still order it?": no thing named
    if thing in _FIGURE_WORDS:  # "is there a free delivery amount?": "free on orders of £75"
        return not any(_DIGIT.search(line.text) for line in selection.shown)
    if thing in _MONEY_WORDS:  # "is there a fee for Click & Collect?": "… is free"
        return not any(_MONEY.search(line.text) for line in selection.shown)
    return not _held(thing, vocabulary.spelled(thing), selection, near)


# what names no thing offered ("is there anything in the box to fix it?"), and what a figure
# is ("a free delivery amount"): a line's figure holds it
_NO_THING = frozenset(
    "anything something way ways option options chance possibility".split()  # noqa: SIM905
)
_FIGURE_WORDS = frozenset("amount number figure".split())  # noqa: SIM905
_MONEY_WORDS = frozenset("fee fees charge charges cost costs price surcharge".split())  # noqa: SIM905


def _kind_words(question: str, offered: re.Pattern[str] | None = None) -> list[str]:
    """The words of the kind of thing the question asks whether the shop sells or offers, up
    to what follows it ("do you offer gift wrapping?", "is there a birthday discount?", "can I
    buy an extended warranty?"); ``offered``: the phrasings read (`_OFFERED` by default)."""
    listed = asks_for_list(question)
    if listed is not None and listed.use is None:  # not "which tent would you recommend?"
        kind: str | None = listed.kind
    else:
        found = (offered or _OFFERED).search(question)
        kind = next((g for g in found.groups() if g), None) if found else None
    return plain_words(_AFTER_KIND.sub("", kind)) if kind is not None else []


# "is there a …", "are there any …": not what "get a …" follows ("if I get a hole in it")
_THERE_IS = re.compile(r"\b(?:is|are)\s+there\s+(?:a|an|any)\s+([^?.!,]+)", re.I)
# "is there a …", "are there any …", "(do members) get a …", "can I buy an …"
_OFFERED = re.compile(_THERE_IS.pattern + r"|\b(?:get|buy)\s+(?:a|an)\s+([^?.!,]+)", re.I)
# What follows the kind in "same-day courier delivery within Leeds", "a shop in Manchester I …"
_AFTER_KIND = re.compile(
    r"\s+(?:for|in|within|with|to|from|on|at|near|that|which|i|you|when|if|so|because)\b.*$",
    re.I,
)


# A three-letter word of consonants only, typed in lower case: an acronym ("nhs", "dhl") or chat
# shorthand, which these are ("thx", "pls").
_ACRONYM = re.compile(r"\b[b-df-hj-np-tv-xz]{3}\b")
_CHAT_ACRONYMS = CHAT_SHORTHAND | frozenset(
    """tx tnx pz smh lmk brb ngl hmm hm nvm sth smth txt pcs xx xxx ppl yrs hrs wks mths wht
    whr whn shd cnt dnt wnt jst""".split()  # noqa: SIM905
)


def names_in(question: str) -> list[str]:
    """Capitalised words after the question's first, all-capital words and words with a capital
    inside, not the shop's own vocabulary: "Ireland", "NHS", "Manchester", "iPhone"."""
    found = (m.group(1) or m.group(2) for m in _NAME.finditer(question.strip()))
    return [name for name in found if name not in _NOT_NAMES]


# A standard or rating named by its code: "EN 343", "ISO 23537", "IPX7", "BS 8479".
_STANDARD = re.compile(r"\b(?:EN|ISO|BS|IPX?|ASTM|UIAA|DIN|ANSI)\s?-?\d[\dA-Z]*\b")


def unknown_standard(question: str, everything: str, vocabulary: Vocabulary) -> str | None:
    """A standard the question names ("does it meet EN 343?") that neither the turn's pages
    (``everything``, lower case) nor the shop's vocabulary hold: the pages cannot say it meets
    it. Spaces and hyphens inside the code do not count ("IPX-7" is "IPX7")."""
    codes = [
        (m.group(0), re.sub(r"[\s-]", "", m.group(0)).lower()) for m in _STANDARD.finditer(question)
    ]
    if not codes:
        return None  # most questions: the pages' text is not flattened for nothing
    flat = re.sub(r"[\s-]", "", everything)
    for named, code in codes:
        if code not in flat and not vocabulary.knows(stem(code)):
            return named
    return None
