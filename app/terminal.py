"""`python -m app chat`: talk to the assistant in a terminal, answers streamed as they come."""

from __future__ import annotations

import logging
import os
import secrets
import sys

from app.chat.outcome import Delta, Done
from app.container import build_container
from app.errors import InvalidMessageError, ShopdeskError
from app.settings import Settings


async def run_terminal_chat(settings: Settings, *, product: str | None = None) -> int:
    """Chat until an empty line or end of input; ``product`` is the page the shopper asks from."""
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
    logging.getLogger().setLevel(logging.WARNING)
    print("Starting shopdesk (the engine takes about half a minute on a CPU)...", file=sys.stderr)
    async with build_container(settings) as container:
        session_id = secrets.token_urlsafe(16)
        about = f" (asking about {product})" if product else ""
        print(f"{settings.shop_name} assistant{about}. Ask away; an empty line or Ctrl-D quits.\n")
        while True:
            try:
                line = input("you> ")
            except EOFError:
                return 0
            if not line.strip():
                return 0
            print("bot> ", end="", flush=True)
            try:
                async for event in container.chat.turn(session_id, line, product=product):
                    if isinstance(event, Delta):
                        print(event.text, end="", flush=True)
                    elif isinstance(event, Done):
                        _print_sources(event)
            except InvalidMessageError as exc:
                print(str(exc))
            except ShopdeskError as exc:
                print(f"\nSorry, something went wrong on our side: {exc}")


def _print_sources(done: Done) -> None:
    outcome = done.outcome
    print()
    shown = outcome.citations or []
    for citation in shown:
        passage = citation.passage.passage
        print(f"   [{citation.number}] {passage.title} — {passage.citation_target}")
    t = outcome.timings
    print(
        f"   ({t.get('total', 0):.1f}s; groundedness {outcome.groundedness:.2f}; "
        f"{outcome.stats.prompt_tokens} prompt tokens, {outcome.stats.cached_tokens} cached)\n"
    )
