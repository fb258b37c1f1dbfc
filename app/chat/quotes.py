"""Quotations in a model's answer: shown only when they are the shop's own words.

A block quote (a line starting with ">") or text in quotation marks reads as the shop's
sentence; a model imitating that format invents "quotes". A quotation stands only when it is
verbatim (up to whitespace, case and quote characters) in a passage the turn was given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.chat.citations import MARKER
from app.retrieval.published_index import ScoredPassage

_QUOTED = re.compile(r"“([^”\n]{12,})”|\"([^\"\n]{12,})\"")
_BLOCK = re.compile(r"(?m)^[ \t]*>.*(?:\n|$)")
_NORMAL = re.compile(r"[\s“”\"'‘’*]+")


def normalised(text: str) -> str:
    return _NORMAL.sub(" ", text).strip().lower()


def verbatim(quote: str, passages: Sequence[ScoredPassage]) -> bool:
    """True when ``quote`` is word for word in one of ``passages``."""
    wanted = normalised(MARKER.sub("", quote).strip(" .,;:…"))
    return bool(wanted) and any(wanted in normalised(h.passage.text) for h in passages)


def fabricated_quotes(text: str, passages: Sequence[ScoredPassage]) -> list[str]:
    """Quotations in ``text`` (quotation marks or block quotes) that no passage holds verbatim."""
    found = [m.group(1) or m.group(2) for m in _QUOTED.finditer(text)]
    found += [line.lstrip(" \t>").strip() for line in _BLOCK.findall(text)]
    return [q for q in found if q and not verbatim(q.strip('“”" '), passages)]
