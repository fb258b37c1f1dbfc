"""The prompt's own layout must never reach the shopper: fences, role labels, headings.

A small model goes on to write the next exchange of the layout ("Customer question: …"), echoes
its fences, or imitates the "Question: … Answer: …" records of the shop's FAQ. The engine stops
at the usual spellings; whatever other casing or spacing gets through is cut here: from the first
layout line on, nothing is the answer.
"""

from __future__ import annotations

import re

# Where the engine stops: the layout's labels as the prompt writes them, and common variants.
STOP_SEQUENCES = (
    "\nCustomer question:",
    "\ncustomer question:",
    "\nCUSTOMER QUESTION:",
    "Customer question:",
    "\nCustomer answer:",
    "\nShop information",
    "\nshop information",
    "<<<",
    ">>>",
    "<|im_start|>",
    "<|im_end|>",
    "\nUser:",
    "\nuser:",
    "\nAssistant:",
    "\nassistant:",
    "\nSystem:",
)
# A layout label in any case or spacing, at a line start or after a sentence.
_LABEL = re.compile(
    r"(?:^|(?<=[\n.!?])\s*)\s*(?:customer\s*(?:question|answer)|shop\s*information|"
    r"reference\s*data|user|assistant|system|question)\s*(?:\(|:)",
    re.IGNORECASE,
)
_FENCE = re.compile(r"<<<|>>>|<\|[a-z_]+\|>", re.IGNORECASE)


_LEADING_ANSWER = re.compile(r"^\s*answer\s*:\s*", re.IGNORECASE)


def without_answer_label(text: str) -> str:
    """An answer that begins "Answer: …", as the FAQ records do, without the label."""
    return _LEADING_ANSWER.sub("", text, count=1)


def scaffolding_start(text: str) -> int | None:
    """Where the layout begins in ``text`` (a label or a fence), or None."""
    starts = [m.start() for m in (_LABEL.search(text), _FENCE.search(text)) if m]
    return min(starts, default=None)
