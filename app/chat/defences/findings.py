"""What an output check reports: why an answer must stop, and where the offending text begins."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Finding:
    reason: str  # "system_prompt_leak", "unverified_contact", ...
    start: int  # index in the answer where the offending text begins


class Check(Protocol):
    def __call__(self, text: str, final: bool) -> Finding | None:
        """Why ``text`` (the answer so far) must not be shown further; ``final`` at the end."""
        ...
