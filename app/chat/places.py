"""Places the shop's pages cover by region but never name: "Belfast" is Northern Ireland.

A delivery page names zones and regions ("Zone 3: Northern Ireland", "the EU", "the rest of the
world"), not every town and country a shopper may live in. Asked "how much is delivery to
Belfast?", the pages do answer, by region; without knowing that Belfast is in Northern Ireland
the turn finds nothing for "Belfast" and declines it as a name the pages never mention.

`Places` holds which places the served pages name. For a place they do not name, it finds the
most specific region holding it that they do, from a small gazetteer of the world's common
places (general knowledge, not the sample shop's): where the question is about goods going
there, it is read with that region in the place's stead ("delivery to Northern Ireland?") for
retrieval, the evidence and the verdict, and the answer says so ("Our pages cover Belfast under
Northern Ireland."); the shopper's own words are what the transcript keeps. A place with no
named region stays unknown, and is declined as before.

A catch-all region ("the rest of the world") does not say that a place is served: a shop that
lists "rest of the world" rates may still not ship to every country. A place covered only by one
is read as it, but the answer is the closest the pages come, not a yes (`Places.by_catch_all`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_EU = ("EU", "European Union")
_WORLD = ("rest of the world", "outside the UK")
# regions that hold every place not named elsewhere: no page naming one says a place is served
CATCH_ALL = frozenset(_WORLD)
_UK_MAINLAND = ("UK mainland", "UK")


def _each(names: str, *regions: str) -> dict[str, tuple[str, ...]]:
    return {name.strip(): regions for name in names.split(",") if name.strip()}


# place -> the regions holding it, most specific first
GAZETTEER: dict[str, tuple[str, ...]] = {
    **_each("England, Wales", *_UK_MAINLAND),
    **_each("Scotland", "mainland Scotland", *_UK_MAINLAND),
    **_each(
        """London, Manchester, Birmingham, Liverpool, Sheffield, Bristol, Newcastle, Nottingham,
        Leicester, Brighton, Oxford, Cambridge, York, Norwich, Exeter, Plymouth, Southampton,
        Portsmouth, Hull, Bradford, Coventry, Derby, Bath, Cornwall, Devon, Kent, Cumbria,
        Yorkshire, Lancashire, Durham, Carlisle, Kendal, Keswick, Sunderland, Wolverhampton,
        Stoke, Ipswich, Peterborough, Lincoln, Gloucester, Cheltenham, Bournemouth, Truro,
        Penzance, Northumberland, Lake District, Peak District""",
        "England",
        *_UK_MAINLAND,
    ),
    **_each(
        "Cardiff, Swansea, Aberystwyth, Wrexham, Snowdonia, Anglesey, Pembrokeshire",
        "Wales",
        *_UK_MAINLAND,
    ),
    **_each(
        "Glasgow, Edinburgh, Aberdeen, Dundee, Stirling, Ayr, Dumfries, Falkirk, Paisley",
        "mainland Scotland",
        "Scotland",
        *_UK_MAINLAND,
    ),
    **_each(
        """Inverness, Fort William, Aviemore, Thurso, Wick, Ullapool, Skye, Isle of Skye,
        Portree, Mull, Islay, Orkney, Shetland, Kirkwall, Lerwick, Stornoway, Hebrides,
        Outer Hebrides, Western Isles, Highlands""",
        "Scottish Highlands",
        "Highlands",
        "Scotland",
        "UK",
    ),
    **_each(
        "Belfast, Derry, Londonderry, Newry, Lisburn, Armagh, Enniskillen, Omagh, Coleraine",
        "Northern Ireland",
        "UK",
    ),
    **_each("St Mary's, Tresco", "Isles of Scilly", "UK"),
    **_each("Jersey, Guernsey, Alderney, Sark, St Helier, St Peter Port", "Channel Islands"),
    **_each(
        """Austria, Belgium, Bulgaria, Croatia, Cyprus, Czechia, Czech Republic, Denmark,
        Estonia, Finland, France, Germany, Greece, Hungary, Ireland, Republic of Ireland, Italy,
        Latvia, Lithuania, Luxembourg, Malta, Netherlands, Holland, Poland, Portugal, Romania,
        Slovakia, Slovenia, Spain, Sweden""",
        *_EU,
    ),
    **_each(
        """Paris, Lyon, Marseille, Berlin, Munich, Hamburg, Frankfurt, Cologne, Madrid,
        Barcelona, Valencia, Seville, Rome, Milan, Naples, Florence, Venice, Amsterdam,
        Rotterdam, Brussels, Antwerp, Vienna, Dublin, Cork, Galway, Lisbon, Porto, Athens,
        Warsaw, Krakow, Prague, Budapest, Copenhagen, Stockholm, Helsinki, Oslo, Tallinn, Riga,
        Vilnius, Bucharest, Sofia, Zagreb, Ljubljana, Bratislava, Valletta, Nicosia""",
        *_EU,
    ),
    **_each(
        """Norway, Switzerland, Iceland, Liechtenstein, Serbia, Albania, Ukraine, Turkey,
        Bosnia, Montenegro, North Macedonia, Moldova, Armenia, USA, United States,
        the States, America, Canada, Mexico, Brazil, Argentina, Chile, Peru, Colombia, Australia,
        New Zealand, Japan, China, Hong Kong, Taiwan, South Korea, Korea, Singapore, Malaysia,
        Thailand, Vietnam, Indonesia, Philippines, India, Pakistan, Bangladesh, Sri Lanka,
        Nepal, Israel, Egypt, Morocco, Kenya, Nigeria, Ghana, South Africa,
        United Arab Emirates, UAE, Dubai, Qatar, Saudi Arabia, Gibraltar, Andorra, Monaco,
        San Marino, Faroe Islands, Greenland, Russia, Belarus, Kazakhstan, Jamaica, Barbados,
        Bermuda, Falkland Islands, Kuwait, Bahrain, Oman, Lebanon, Tunisia, Algeria,
        Tanzania, Uganda, Ethiopia""",
        *_WORLD,
    ),
    **_each(
        """New York, Los Angeles, San Francisco, Chicago, Boston, Seattle, Toronto, Vancouver,
        Montreal, Sydney, Melbourne, Brisbane, Auckland, Wellington, Tokyo, Beijing,
        Shanghai, Mumbai, Delhi, Cape Town, Johannesburg, Geneva, Zurich, Bergen, Reykjavik,
        Istanbul""",
        *_WORLD,
    ),
}
# a city's country, where the pages may name it: Zurich is in Switzerland, Toronto in Canada
_COUNTRY_OF: dict[str, str] = {
    city.strip(): country
    for country, cities in {
        "USA": "New York, Los Angeles, San Francisco, Chicago, Boston, Seattle, the States",
        "Canada": "Toronto, Vancouver, Montreal",
        "Australia": "Sydney, Melbourne, Brisbane",
        "New Zealand": "Auckland, Wellington",
        "Switzerland": "Geneva, Zurich",
        "Norway": "Bergen, Oslo",
        "Ireland": "Dublin, Cork, Galway",
        "France": "Paris, Lyon, Marseille",
        "Germany": "Berlin, Munich, Hamburg, Frankfurt, Cologne",
        "Spain": "Madrid, Barcelona, Valencia, Seville",
        "Italy": "Rome, Milan, Naples, Florence, Venice",
        "Netherlands": "Amsterdam, Rotterdam",
    }.items()
    for city in cities.split(",")
}
# a country's adjective, as an address or a parcel is given one ("a Dutch address", "Irish
# customs"), read as the country; not those also a make or a thing ("American Express",
# "Swiss army knife", "French press")
_OF_COUNTRY: dict[str, str] = {
    demonym: country
    for country, demonyms in {
        "Netherlands": "Dutch",
        "France": "French",
        "Germany": "German",
        "Spain": "Spanish",
        "Italy": "Italian",
        "Ireland": "Irish",
        "Belgium": "Belgian",
        "Portugal": "Portuguese",
        "Austria": "Austrian",
        "Denmark": "Danish",
        "Sweden": "Swedish",
        "Finland": "Finnish",
        "Poland": "Polish",
        "Greece": "Greek",
        "Czechia": "Czech",
        "Hungary": "Hungarian",
        "Romania": "Romanian",
        "Bulgaria": "Bulgarian",
        "Croatia": "Croatian",
        "Slovakia": "Slovak, Slovakian",
        "Slovenia": "Slovenian, Slovene",
        "Estonia": "Estonian",
        "Latvia": "Latvian",
        "Lithuania": "Lithuanian",
        "Malta": "Maltese",
        "Cyprus": "Cypriot",
        "Luxembourg": "Luxembourgish",
        "Norway": "Norwegian",
        "Iceland": "Icelandic",
        "Canada": "Canadian",
        "Australia": "Australian",
        "New Zealand": "Kiwi",
    }.items()
    for demonym in (d.strip() for d in demonyms.split(","))
}
GAZETTEER |= {demonym: GAZETTEER[country] for demonym, country in _OF_COUNTRY.items()}
GAZETTEER["Northern Irish"] = GAZETTEER["Belfast"]  # not Irish: Northern Ireland
_COUNTRY_OF |= _OF_COUNTRY
# a country's adjective as the answer names the place
_SPOKEN = {**_OF_COUNTRY, "Dutch": "the Netherlands", "Northern Irish": "Northern Ireland"}
# Left out: places more often something else in a message (Perth, in Scotland and Australia;
# Douglas, Harris, Lewis, Jordan, Georgia: names; Reading, Nice: words)


# A place the shopper lives in or sends to is covered by its region ("deliver to Belfast",
# "my address in Inverness", "returning from Paris"); a place asked about as the shop's own
# ("is there a store in Manchester?") is not: the pages must name it.
_WHERE_GOODS_GO = re.compile(
    r"\b(?:deliver\w*|ship\w*|send\w*|sent|post|postage|posted|courier\w*|dispatch\w*|"
    r"parcels?|customs|duty|duties|import\w*|VAT|tax(?:es)?|arrive\w*|returns?|returning|"
    r"address|home|live|living|based|from)\b",
    re.IGNORECASE,
)


# a follow-up that points back at what the last question asked about
_POINTS_BACK = re.compile(r"\b(?:it|that|there|this)\b", re.IGNORECASE)
# a follow-up that goes on about the delivery itself: what is paid on it, how it is sent
_OF_THE_DELIVERY = re.compile(
    r"\b(?:customs|duty|duties|import\w*|VAT|tax(?:es)?|deliver\w*|ship\w*|postage|courier\w*|"
    r"arrive\w*|tracked|tracking)\b",
    re.IGNORECASE,
)


class Places:
    """Which places of the gazetteer the shop's pages (``texts``) name, and the region they
    name for those they do not."""

    def __init__(self, texts: Iterable[str]) -> None:
        text = " ".join(texts)
        found = _ANY_KNOWN.findall(text)
        self._named = frozenset(_canonical(m) for m in found)

    def named(self, place: str) -> bool:
        return place in self._named

    def region_of(self, place: str) -> str | None:
        """The most specific region holding ``place`` that the pages name, when they do not
        name ``place`` itself; None otherwise (named, or no region of it named)."""
        if place not in GAZETTEER or place in self._named:
            return None
        country = _COUNTRY_OF.get(place)
        if country and country in self._named:
            return country
        return next((r for r in GAZETTEER[place] if r in self._named), None)

    def listed_under(self, place: str) -> str | None:
        """The catch-all region the pages name that holds ``place`` when they name ``place``
        too, as one of its examples ("Rest of the world: including Norway, Switzerland, the
        USA, …"); None otherwise. A line about the region is about the place: the FAQ's
        "Rest-of-world orders go by DHL Express …" answers "do you ship to the usa?"."""
        if place not in self._named:
            return None
        return next(
            (r for r in GAZETTEER.get(place, ()) if r in CATCH_ALL and r in self._named), None
        )

    def resolved(self, text: str) -> list[tuple[str, str]]:
        """The places in ``text`` the pages do not name, each with the region they name, when
        ``text`` asks about goods going there or coming from there."""
        found: list[tuple[str, str]] = []
        if not _WHERE_GOODS_GO.search(text):
            return found
        for match in _PLACE.finditer(text):
            region = self.region_of(_canonical(match.group(1)))
            if region:
                found.append((match.group(1), region))
        return found

    def mentioned(self, text: str) -> list[str]:
        """The gazetteer's places ``text`` names, as the gazetteer spells them ("canada":
        "Canada"), typed in any case but for those that are also words ("turkey")."""
        return [_canonical(match.group(1)) for match in _PLACE.finditer(text)]

    def destinations(self, text: str) -> list[str]:
        """The places ``text`` names that the pages name too, when it asks about goods going
        there or coming from there ("how long does delivery to canada take?": Canada; not the
        UK of "a women's UK size 20")."""
        if not _WHERE_GOODS_GO.search(text):
            return []
        return [place for place in self.mentioned(text) if place in self._named]

    def asked_in(self, question: str, last: str) -> list[str]:
        """The destinations of ``question``; for a follow-up that names none and points back
        ("how much is it?" after "how long does delivery to canada take?"), those of the
        conversation's ``last`` question."""
        found = self.destinations(question)
        if found or not _POINTS_BACK.search(question) or self.mentioned(question):
            return found
        return self.destinations(last)

    def carried(self, question: str, last: str) -> str:
        """A follow-up that names no place and goes on about the delivery, read with the
        places the pages name that ``last`` (the last question that named something) asked
        about: "do I pay customs?" after "do you ship to canada?" is "do I pay customs? (to
        Canada)", not the EU's "we pay any customs charges on your behalf"."""
        if self.mentioned(question) or not _OF_THE_DELIVERY.search(question):
            return question
        found = self.destinations(last)
        return f"{question.rstrip()} (to {' and '.join(found)})" if found else question

    def by_catch_all(self, text: str) -> list[str]:
        """The places in ``text`` read as a catch-all region ("Iceland" as "the rest of the
        world"): the pages do not say they are served."""
        return [place for place, region in self.resolved(text) if region in CATCH_ALL]

    def note(self, question: str) -> str:
        """What the reading did, for the shopper: "Our pages cover Dublin under the EU."; ""
        when it did nothing. A place read as a catch-all region is not said to be covered."""
        found = dict(self.resolved(question))
        said = [
            f"{_spoken(_canonical(place))} under {_the(region)}"
            for place, region in found.items()
            if region not in CATCH_ALL and _spoken(_canonical(place)) != region
        ]
        loose = {_spoken(_canonical(place)): region for place, region in found.items()
                 if region in CATCH_ALL}  # fmt: skip
        notes = [f"Our pages cover {' and '.join(said)}."] if said else []
        if loose:
            region = _the(next(iter(loose.values())))
            notes.append(f"Our pages don't name {' or '.join(loose)}; they say this of {region}.")
        return " ".join(notes)

    def read(self, question: str) -> str:
        """``question`` with each place the pages cover only by region read as that region, when
        it asks about goods going there or coming from there: "delivery to Belfast?" →
        "delivery to Northern Ireland?". The place's own name is left out: it would find
        another region's lines by its words or meaning ("Dublin", "Ireland": Northern
        Ireland's)."""
        if not _WHERE_GOODS_GO.search(question):
            return question

        def instead(match: re.Match[str]) -> str:
            region = self.region_of(_canonical(match.group(1)))
            return _the(region) if region else match.group(1)

        read = _PLACE.sub(instead, question)  # "a Dutch address": "the EU address"
        return re.sub(r"\b(?:the|an?)\s+(the)\b", r"\1", read, flags=re.I)

    def with_catch_all(self, question: str) -> str:
        """``question`` with each place the pages list under a catch-all region followed by
        it, when it asks about goods going there: "do you ship to the usa?" → "do you ship to
        the usa (the rest of the world)?", which the FAQ's "Rest-of-world orders go by DHL
        Express …" answers as much as the section listing the USA."""
        if not _WHERE_GOODS_GO.search(question):
            return question

        def with_region(match: re.Match[str]) -> str:
            listed = self.listed_under(_canonical(match.group(1)))
            return f"{match.group(1)} ({_the(listed)})" if listed else match.group(1)

        return _PLACE.sub(with_region, question)


def _known(gazetteer: dict[str, tuple[str, ...]], countries: dict[str, str]) -> set[str]:
    """Every place and region of the gazetteer."""
    names = set(gazetteer) | set(countries.values())
    for regions in gazetteer.values():
        names.update(regions)
    return names


_KNOWN = _known(GAZETTEER, _COUNTRY_OF)
# every place and region at once, longest first: "Northern Ireland" is read whole, not "Ireland"
_LONGEST_FIRST = sorted(_KNOWN, key=len, reverse=True)
_ANY_KNOWN = re.compile(
    r"\b(" + "|".join(re.escape(p).replace(r"\ ", r"[\s-]+") for p in _LONGEST_FIRST) + r")\b",
    re.IGNORECASE,
)
_CANONICAL = {name.lower(): name for name in _KNOWN}
# the same in a shopper's message, in any case ("belfast" in a hurried message), except the
# names that are also words or other names: capitalised, or after "to" or "in" ("i live in
# jersey", not "150 g/m² jersey" nor "grips made from cork")
_ALSO_WORDS = frozenset(
    """bath wick mull cork hull derby stoke turkey china jersey sark kent wales durham lincoln
    york skye harris lewis america polish kiwi""".split()  # noqa: SIM905
) | {"the states"}
_AFTER_WHERE = r"(?:(?<=\bto )|(?<=\bin )|(?<=\b2 ))"  # "2": "to" in a text message


def _written(place: str) -> str:
    """The pattern of ``place`` as a shopper may type it."""
    exact = re.escape(place).replace(r"\ ", r"[\s-]+")
    if place.lower() in _ALSO_WORDS:
        return f"{exact}|{_AFTER_WHERE}(?i:{exact})"
    return exact if place != place.title() and not place.isupper() else f"(?i:{exact})"


_PLACE = re.compile(r"\b(" + "|".join(_written(p) for p in _LONGEST_FIRST) + r")\b")


def _canonical(found: str) -> str:
    """A place or region as the gazetteer spells it ("northern-ireland": "Northern Ireland")."""
    return _CANONICAL.get(re.sub(r"[\s-]+", " ", found.lower()), found)


def _the(region: str) -> str:
    """A region as a sentence names it: "the EU", "the rest of the world", "Northern Ireland"."""
    return f"the {region}" if region.islower() or region.isupper() else region


def _spoken(place: str) -> str:
    """A place as the answer names it: a country's adjective as the country ("Dutch": the
    Netherlands), the rest as written."""
    return _SPOKEN.get(place, place)
