"""ABCD's agent guidelines as a second knowledge base: one Markdown page per flow.

The Action-Based Conversations Dataset (asappresearch/abcd, MIT) ships ``guidelines.json``, the
policy handbook of an online clothing shop's support agents: flows ("Product Defect", "Shipping
Issue", ...) made of subflows ("Return Due to Size", "Shipping Cost", ...), each with instructions
and the actions an agent takes (a button, a sentence, and sub-points, some of them nested with
" > " and alternatives joined by "<or>").

``write_knowledge`` turns that JSON into plain Markdown that the ordinary ingestion
(``ingest.pipeline.run_ingest`` with ``Settings(knowledge_dir=out_dir, ...)``) loads like the shop's
own policy pages: one file per flow in ``policies/``, named after it
(``policies/product-defect.md``, which is also the document id), titled ``# Flow``, with the
flow's description and one ``## Subflow`` section per subflow. They are the shop's own handbook,
so, like any policy page, they are the shop's words (their "let the customer know…" is guidance,
not a planted instruction).
Button names such as ``[Pull up Account]`` are kept as plain words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

_BUTTON = re.compile(r"\[([^\[\]]+)\]")
_SPACES = re.compile(r"\s+")
_OR = re.compile(r"\s*<or>\s*", re.IGNORECASE)
_NESTED = re.compile(r"\s+>\s+")
_NON_SLUG = re.compile(r"[^a-z0-9]+")
_PLACEHOLDERS = {"", "x", "n/a"}


def write_knowledge(guidelines: Path, out_dir: Path) -> list[Path]:
    """Write one Markdown file per flow of ``guidelines`` into ``out_dir``; return their paths.

    Raises ValueError when the file is not a JSON object of flows.
    """
    data = json.loads(guidelines.read_text(encoding="utf-8"))
    if not isinstance(data, Mapping):
        raise ValueError(f"{guidelines}: expected a JSON object of flows")
    out_dir = out_dir / "policies"
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    used: set[str] = set()
    for flow, body in data.items():
        if not isinstance(body, Mapping):
            raise ValueError(f"{guidelines}: flow {flow!r} is not an object")
        path = out_dir / _file_name(str(flow), used)
        path.write_text(flow_markdown(str(flow), body), encoding="utf-8")
        written.append(path)
    return written


def flow_markdown(flow: str, body: Mapping[str, Any]) -> str:
    """One flow as Markdown: its title and description, then a section per subflow."""
    lines = [f"# {_clean(flow)}", ""]
    description = _clean(str(body.get("description") or ""))
    if description:
        lines += [f"Topics: {description}.", ""]
    subflows = body.get("subflows") or {}
    if not isinstance(subflows, Mapping):
        raise ValueError(f"flow {flow!r}: subflows is not an object")
    for name, subflow in subflows.items():
        if isinstance(subflow, Mapping):
            lines += _subflow_lines(str(name), subflow)
    return "\n".join(lines).rstrip() + "\n"


def _subflow_lines(name: str, subflow: Mapping[str, Any]) -> list[str]:
    """``## Subflow``, the first instruction, the numbered steps, then the other instructions."""
    instructions = [_clean(str(i)) for i in _as_list(subflow.get("instructions"))]
    instructions = [i for i in instructions if i]
    lines = [f"## {_clean(name)}", ""]
    if instructions:
        lines += [instructions[0], ""]
    steps = [_action_lines(a) for a in _as_list(subflow.get("actions")) if isinstance(a, Mapping)]
    steps = [s for s in steps if s]
    if steps:
        lines += ["Steps:", ""]
        for number, step in enumerate(steps, start=1):
            lines.append(f"{number}. {step[0]}")
            lines += [f"   {line}" for line in step[1:]]
        lines.append("")
    for instruction in instructions[1:]:
        lines += [instruction, ""]
    return lines


def _action_lines(action: Mapping[str, Any]) -> list[str]:
    """The action's first line ("Button: text") and its sub-points as nested bullets."""
    button = _clean(str(action.get("button") or ""))
    text = _clean(str(action.get("text") or ""))
    if text.lower() in _PLACEHOLDERS:
        text = ""
    if button.lower() in _PLACEHOLDERS:
        button = ""
    head = f"{button}: {text}" if button and text else button or text
    lines: list[str] = []
    for sub in _as_list(action.get("subtext")):
        parts = [p for p in (_clean(p) for p in _NESTED.split(str(sub))) if p]
        if not parts:
            continue
        lines.append(f"- {parts[0]}")
        lines += [f"  - {part}" for part in parts[1:]]
    if not head and not lines:
        return []
    return [head or "Step", *lines]


def _clean(text: str) -> str:
    """Buttons as plain words, "<or>" as "or", runs of whitespace as one space."""
    text = _BUTTON.sub(r"\1", text)
    text = _OR.sub(", or ", text)
    return _SPACES.sub(" ", text).strip()


def _as_list(value: Any) -> Sequence[Any]:
    if value is None:
        return []
    if isinstance(value, str | Mapping):
        return [value]
    return list(value)


def _file_name(flow: str, used: set[str]) -> str:
    """``Single-Item Query`` → ``single-item-query.md``, made unique among the files written."""
    stem = _NON_SLUG.sub("-", flow.lower()).strip("-") or "flow"
    name, counter = f"{stem}.md", 2
    while name in used:
        name, counter = f"{stem}-{counter}.md", counter + 1
    used.add(name)
    return name
