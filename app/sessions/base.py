"""Conversation state: the turns of a session, in order, and one writer per session at a time."""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict, dataclass, fields
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class ShownSource:
    """A page the answer cited, as the shopper was shown it under the answer: ``number`` is the
    answer's [n] marker."""

    number: int
    title: str
    section: str = ""
    citation: str = ""


@dataclass(frozen=True)
class Turn:
    """One question and the answer it got, with the passages the answer rested on.

    ``answer`` is what the model said (checked): all that later prompts see. ``shown`` is what
    the shopper read (the model's words with the shop's quoted lines and any note), for display.
    """

    question: str
    answer: str
    passage_ids: tuple[str, ...] = ()
    at: float = 0.0
    shown: str = ""
    product: str | None = None  # the product the turn was about (its record's document id)
    # what the shopper saw under the answer, so a page that restores the conversation shows it
    sources: tuple[ShownSource, ...] = ()
    answered: bool = True  # False: declined or cut short (no sources are listed under it)
    # the products a listing answer named, in its order: "the first one" next picks of them
    listed: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> Turn:
        """The turn back; one saved before ``shown`` existed showed the shopper its answer. Fields
        this version does not know (written by a newer replica during a rolling upgrade) are
        left out rather than failing the conversation."""
        data = json.loads(text)
        data["passage_ids"] = tuple(data.get("passage_ids", ()))
        data["listed"] = tuple(data.get("listed", ()))
        data["sources"] = tuple(
            ShownSource(**{k: v for k, v in source.items() if k in _SOURCE_FIELDS})
            for source in data.get("sources", ())
        )
        data.setdefault("shown", data["answer"])
        return cls(**{k: v for k, v in data.items() if k in _FIELDS})


_FIELDS = frozenset(f.name for f in fields(Turn))
_SOURCE_FIELDS = frozenset(f.name for f in fields(ShownSource))


class SessionStore(Protocol):
    """Where sessions live: Redis in production, this process by default."""

    async def turns(self, session_id: str) -> list[Turn]: ...

    async def append(self, session_id: str, turn: Turn) -> int:
        """Add a turn; returns its index in the session."""
        ...

    def exclusive(self, session_id: str) -> AbstractAsyncContextManager[None]:
        """Held for a whole chat turn, so two tabs sending at once are answered in order."""
        ...

    async def set_page(self, session_id: str, product: str) -> None:
        """The product of the page the conversation was started from (its SKU or URL)."""
        ...

    async def page(self, session_id: str) -> str | None: ...

    async def save_vector(self, session_id: str, index: int, vector: np.ndarray) -> None: ...

    async def load_vectors(self, session_id: str, indices: list[int]) -> dict[int, np.ndarray]: ...

    async def ping(self) -> bool: ...

    async def close(self) -> None: ...
