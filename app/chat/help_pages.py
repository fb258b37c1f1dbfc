"""The shop's help pages by their structure.

A question that names only a page's topic ("What is your warranty?", "whats ur returns policy")
asks what that page says as a whole, which its introduction says; the introduction is searched
first, whatever its cosine. An introduction that only says what its page holds ("This page lists
every way to reach us, …") says nothing itself: its page's first section is searched first instead
("how can I contact you?": the Opening hours table). A question that asks how long something of a
page's topic takes, or what it costs, and nothing more ("How long does delivery take?", "How much
is delivery?"), asks for a column of the page's table: its first table with a time or a cost column
is the answer, whole ("Zone 1: UK mainland", the page's first case), when it is short enough to
read (a table's rows are counted across the chunks it is split into). Its rows embed far from such
questions (a row is a list of cells), so the cosine alone does not find it. A question naming only
what a section's heading names ("whats your email": "Email and contact form") asks that section.
A body measurement the question gives ("a 104cm chest") is looked up in the tables measuring it:
the row whose range holds it ("| L | 103–108 | 88–93 |") is searched first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from app.chat.answerability import asks_price
from app.chat.evidence import (
    HELP_KINDS,
    MAX_TABLE_ROWS,
    REQUEST,
    asked_stems,
    asks_page,
    describes_itself,
    figures_of,
    in_range,
    models_row,
    plain_words,
    stem,
    stems,
    table_cells,
)
from app.chat.faq_questions import faq_questions
from app.index.passage import TABLE_RULE, Passage

# "how long does delivery take?", "how soon will it arrive?", "delivery times"
_DURATION = re.compile(
    r"\bhow\s+(?:long|soon|quickly|fast|many\s+(?:days|weeks))\b"
    r"|\bwhen\b[^?]*\b(?:arriv|expect)\w*|\b(?:delivery|shipping|dispatch)\s+(?:time|period)s?\b",
    re.IGNORECASE,
)
# what a way of reaching the shop is reached at, which names no section of its own ("your email
# address", "your phone number")
_HANDLES = frozenset(stem(w) for w in ("address", "addresses", "number", "details"))
_DURATION_COLUMNS = frozenset(stem(w) for w in ("time", "period", "duration"))
_PRICE_COLUMNS = frozenset(stem(w) for w in ("price", "cost", "charge", "fee"))
# the words that ask for the column, not for what it is of ("how long", "take", "much")
_DURATION_WORDS = frozenset(
    stem(w)
    for w in (
        *("long", "soon", "quickly", "fast", "many", "days", "weeks"),
        *("take", "takes", "arrive", "time", "period"),
    )
)
# "how long for my order to arrive?", "how soon can I expect my parcel?": what arrives is what is
# delivered, so a question naming it and nothing else asks how long delivery takes ("how quickly
# does it arrive?" asks of what the conversation is about: an e-gift card)
_ARRIVAL = re.compile(r"\b(?:arriv|expect)\w*", re.IGNORECASE)
_DELIVERED = frozenset(
    stem(w) for w in ("order", "item", "items", "parcel", "article", "purchase", "goods", "stuff")
)
_PRICE_WORDS = frozenset(
    stem(w) for w in ("much", "price", "cost", "costs", "charge", "charges", "fee")
)


@dataclass(frozen=True)
class _Table:
    passage: Passage
    columns: frozenset[str]  # the stems of its header row's cells
    about: frozenset[str]  # and of its page's title and its section's headings


class HelpPages:
    def __init__(self, passages: Sequence[Passage]) -> None:
        first: dict[str, Passage] = {}
        opening: dict[str, Passage] = {}  # each help page's first section's first passage
        tables: dict[tuple[str, str, str], list[Passage]] = {}  # a table's parts, when chunked
        # each table part's columns (but its first) and its rows' labels (their first cells)
        self._cells: list[tuple[str, list[frozenset[str]], list[frozenset[str]]]] = []
        self._document: dict[str, str] = {}  # a table part's id → its page's document id
        self._labels: dict[str, list[str]] = {}  # a table part's id → its rows' first cells
        # a table part's id → the stems of its columns measured in cm ("Chest (cm)"; others
        # empty) and its rows' cells
        self._measures: dict[str, tuple[list[frozenset[str]], list[list[str]]]] = {}
        rows: dict[tuple[str, str, str], int] = {}
        for passage in passages:  # help pages only: a record or an FAQ has no introduction
            if passage.kind in HELP_KINDS and passage.opens_page:
                first.setdefault(passage.document_id, passage)  # its first part, when chunked
            elif passage.kind in HELP_KINDS:
                opening.setdefault(passage.document_id, passage)
            header, body = _table(passage) if passage.kind in HELP_KINDS else ("", [])
            if header:
                self._cells.append((passage.id, *_cells(header, body)))
                self._labels[passage.id] = [_row_label(row) for row in body]
                measured = [
                    stems(_IN_CM.sub(" ", cell)) if _IN_CM.search(cell) else frozenset()
                    for cell in table_cells(header)
                ]
                if any(measured):
                    self._measures[passage.id] = (measured, [table_cells(r) for r in body])
                self._document[passage.id] = passage.document_id
                key = (passage.document_id, passage.section, header)
                tables.setdefault(key, []).append(passage)
                rows[key] = rows.get(key, 0) + len(body)
        self._introductions = list(first.values())
        # an introduction that only says what its page holds ("This page lists every way to
        # reach us, …") answers nothing itself: its page's first section does
        self._opening = {
            intro.id: opening[intro.document_id].id
            for intro in self._introductions
            if intro.document_id in opening and describes_itself(intro.text)
        }
        self._sections = list({(p.document_id, p.section): p for p in reversed(passages)
                               if p.kind in HELP_KINDS and not p.opens_page}.values())  # fmt: skip
        self._tables = [
            _Table(parts[0], stems(key[2]), stems(f"{key[2]} {parts[0].title} {key[1]}"))
            for key, parts in tables.items()
            if rows[key] <= MAX_TABLE_ROWS  # a long one's whole is no answer to read
        ]
        self.faqs = faq_questions(passages)  # each FAQ's first passage: its question its title
        # the stems of the help pages' titles: the topics they are on ("return", "refund")
        self.topics = frozenset().union(*(stems(p.title) for p in self._introductions))
        # their titles' words, lower case ("returns", "warranty")
        self.topic_words = frozenset(
            w for p in self._introductions for w in plain_words(p.title.lower())
        )

    def introducing(self, asked: frozenset[str]) -> list[str]:
        """The id of the introduction of the one help page whose topic ``asked`` (a question's
        stems) names and nothing else; [] when none does, or more than one."""
        found = [p.id for p in self._introductions if asks_page(asked, p)]
        return found if len(found) == 1 else []

    def first_section(self, introduction: str) -> str | None:
        """The id of the first section's first passage of the page whose ``introduction`` (an
        id) only says what the page holds; None for one that says something itself ("you can
        return it within 30 days")."""
        return self._opening.get(introduction)

    def section_named(self, question: str) -> str | None:
        """The id of the first passage of the one help page section whose own heading holds
        every word ``question`` holds ("whats your email", "your email address?": "Email and
        contact form"); None when none does, or more than one. Words that ask how long name no
        section ("How long do I have?" is not "How long we keep your information"), nor do those
        that ask what something costs; a price that is what is asked about is named ("do you
        have a price promise?" is not "Our 30-day returns promise")."""
        price = _PRICE_WORDS if asks_price(question) else frozenset()
        named = asked_stems(question) - _DURATION_WORDS - price
        if named - _HANDLES:  # "your email address": the Email section
            named -= _HANDLES
        found = [
            p.id for p in self._sections if named and named <= stems(p.heading) - stems(p.title)
        ]
        return found[0] if len(found) == 1 else None

    def cell_asked(self, asked: frozenset[str]) -> str | None:
        """The id of the one table part whose column and row ``asked`` (a question's stems)
        both name ("what time does live chat close on a saturday": the Opening hours table's
        Saturday column and Live chat row), whose row is then the answer; a table's rows embed
        far from such questions. None when no table's or more than one's are named."""
        found = [
            pid
            for pid, columns, rows in self._cells
            if any(c and c <= asked for c in columns) and any(r and r <= asked for r in rows)
        ]
        return found[0] if len(found) == 1 else None

    def row_of_kind(self, topic: frozenset[str], kinds: Sequence[frozenset[str]]) -> str | None:
        """The id of the first table part with a column ``topic`` (a question's stems that no
        field of the product's record names) names and a row whose label holds every one of
        the first of ``kinds`` (the kinds of product asked about, the most telling first) any
        row holds ("what's the warranty on the cairngorm 800?": the Warranty period table's
        "Insulated jackets, fleeces, …" row); a row labelled with a model's name (`models_row`:
        the size guide's "Ben Nevis Leather Mountain Boot") is of that model, not of a kind.
        None when none does, or tables of more than one page do."""
        for kind in kinds if topic else ():
            found = [
                pid
                for pid, columns, rows in self._cells
                if any(c & topic for c in columns)
                and any(kind <= r and not models_row(label)
                        for r, label in zip(rows, self._labels[pid], strict=True))
            ]  # fmt: skip
            if found:
                return found[0] if len({self._document[pid] for pid in found}) == 1 else None
        return None

    def measured(self, question: str) -> list[str]:
        """The ids of the table parts with a column measured in cm that ``question`` names
        ("chest", "foot length") and a row whose cell in it holds a figure the question gives
        ("I'm a 104 cm chest": the men's clothing table's "| L | 103–108 | 88–93 |"); [] when
        it gives no figure, or no such row is found."""
        figures = figures_of(question)
        asked = asked_stems(question)
        found = []
        for pid, (columns, rows) in self._measures.items() if figures else ():
            named = [i for i, column in enumerate(columns) if column and column <= asked]
            cells = [row[i] for row in rows for i in named if i < len(row)]
            if any(c == f or in_range(c, float(f)) for c in cells for f in figures):
                found.append(pid)
        return found

    def table_asked(self, question: str) -> str | None:
        """The id of the passage of the first table of the one help page whose time or cost
        column ``question`` asks for, of what the page's title, the table's section or its
        header names and nothing else ("How much is delivery?": the Delivery page's Zone 1
        table; "How much is delivery to Northern Ireland?": its Zone 3 table); None when none
        does, or tables of more than one page do."""
        wanted: set[str] = set()
        framing: set[str] = set()
        if _DURATION.search(question):
            wanted |= _DURATION_COLUMNS
            framing |= _DURATION_WORDS
        if asks_price(question):
            wanted |= _PRICE_COLUMNS
            framing |= _PRICE_WORDS
        rest = asked_stems(question) - framing - REQUEST
        arrival = _ARRIVAL.search(question)
        delivered = rest & _DELIVERED  # named: "it" is what the conversation is about
        if wanted & _DURATION_COLUMNS and arrival and delivered:
            rest = rest - delivered - {stem(arrival[0])} or frozenset({stem("delivery")})
        if not wanted or not rest:
            return None
        found = [t for t in self._tables if t.columns & wanted and rest <= t.about]
        if len({t.passage.document_id for t in found}) != 1:
            return None
        return found[0].passage.id


def _cells(header: str, rows: Sequence[str]) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
    """The stems of the words of ``header``'s cells but its first (the columns), and of each
    of ``rows``' first cell (the rows' labels)."""

    def words(cell: str) -> frozenset[str]:
        return stems(" ".join(re.findall(r"[a-zA-Z]+", cell)))  # "Phone: 0113 …": phone

    columns = [words(c) for c in header.strip("|").split("|")[1:]]
    return columns, [words(_row_label(row)) for row in rows]


_IN_CM = re.compile(r"\(cm\)")  # "Chest (cm)": a body measurement's column


def _row_label(row: str) -> str:
    """A table row's first cell, its label ("| Stoves | 3 years |": "Stoves")."""
    return row.strip("|").split("|")[0].strip()


def _table(passage: Passage) -> tuple[str, list[str]]:
    """The passage's first table: its header row (a row with a rule under it) and the rows
    under it; ("", []) when it has none."""
    lines = [line.strip() for line in passage.text.split("\n")]
    for at, (line, below) in enumerate(pairwise(lines)):
        if line.startswith("|") and TABLE_RULE.match(below):
            rows = []
            for row in lines[at + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(row)
            return line, rows
    return "", []
