"""The shopper's help page (Gradio): streamed, sourced answers; ratings; a way to a person.
Opened as `/?product=SKU` (or the product page's URL), its answers are about that product."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import gradio as gr

from app.chat.conversations import ConversationService, Recorded
from app.chat.outcome import Delta
from app.chat.session_ids import new_session_id
from app.errors import (
    EngineUnavailableError,
    InvalidMessageError,
    RateLimitedError,
    ServerBusyError,
    ShopdeskError,
    TranscriptNotFoundError,
)
from app.presentation.turns import done_payload
from app.traffic.guards import Guards, client_address

logger = logging.getLogger(__name__)

# the service, the guards shared with the API (admission, per-client limits), the secret, the
# shop's name
Provider = Callable[[], tuple[ConversationService, Guards, str, str]]

CSS = """
.shopdesk-header h2 {margin-bottom: 0}
.shopdesk-header p {margin-top: 2px; color: #5b6770}
footer {display: none !important}
"""
BUSY = "Sorry, our assistant is busy or restarting right now. Please try again in a minute, \
or use “Talk to a person” below."


def build_shopper_page(provider: Provider, shop_name: str) -> gr.Blocks:
    with gr.Blocks(title=f"{shop_name} · Help") as page:
        session = gr.State(None)  # the signed session id, created on the first message
        answers = gr.State({})  # chat index of each answer → its turn index (what rates it)
        gr.Markdown(
            f"## {shop_name} help\nAsk about products, sizes, delivery, returns and orders. "
            "Answers come from our help pages, with their sources.",
            elem_classes="shopdesk-header",
        )
        chat = gr.Chatbot(
            height=460,
            placeholder="Hi! How can we help today?",
            feedback_options=("Like", "Dislike"),
            buttons=["copy"],
            label="Conversation",
            show_label=False,
        )
        with gr.Row():
            box = gr.Textbox(
                placeholder="Type your question and press Enter",
                show_label=False,
                scale=8,
                max_lines=6,
                elem_id="shopper-message",
            )
            send = gr.Button("Send", variant="primary", scale=1, elem_id="shopper-send")
        # what went wrong with a send (too fast, too long), right under the box it concerns
        notice = gr.Markdown(elem_id="shopper-notice")
        with gr.Row():
            human = gr.Button("Talk to a person", elem_id="shopper-human")
            fresh = gr.Button("New conversation", elem_id="shopper-new")
        comment = gr.Textbox(
            placeholder="Optional: tell us what was wrong or helpful, then rate the answer",
            show_label=False,
            max_lines=3,
            elem_id="shopper-comment",
        )

        async def respond(
            message: str,
            history: list[dict[str, Any]],
            sid: str | None,
            ids: dict[int, int],
            request: gr.Request | None = None,
        ) -> AsyncIterator[tuple[Any, ...]]:
            service, guards, secret, _ = provider()
            product = _page_product(request)
            sid = sid or new_session_id(secret)
            try:  # past the limit, the message never shows as sent: it stays in the box
                guards.within_turn_rate(_client(request, guards.proxy_hops))
            except RateLimitedError as exc:
                yield history, message, sid, ids, f"⏳ {exc}"
                return
            history = [*history, {"role": "user", "content": message}]
            history.append({"role": "assistant", "content": ""})
            yield history, "", sid, ids, ""
            text = ""
            try:
                async with guards.admission.slot():
                    async for event in service.ask(sid, message, product=product):
                        if isinstance(event, Delta):
                            text += event.text
                            history[-1] = {"role": "assistant", "content": text}
                            yield history, "", sid, ids, ""
                        elif isinstance(event, Recorded):
                            history[-1] = {"role": "assistant", "content": _with_sources(event)}
                            # rated by its turn key: known even while the database is down
                            ids = {**ids, len(history) - 1: event.turn.turn_index}
                            yield history, "", sid, ids, ""
            except InvalidMessageError as exc:
                history = history[:-2]
                yield history, message, sid, ids, f"⚠️ {exc}"
            except ServerBusyError as exc:  # kept, to send again
                history = history[:-2]
                yield history, message, sid, ids, f"⏳ {exc}"
            except (EngineUnavailableError, ShopdeskError):
                logger.exception("turn failed")
                history[-1] = {"role": "assistant", "content": BUSY}
                yield history, message, sid, ids, ""

        async def rate(
            ids: dict[int, int], sid: str | None, note: str, data: gr.LikeData
        ) -> tuple[str, str]:
            index = data.index if isinstance(data.index, int) else data.index[0]
            turn_index = ids.get(index)
            if sid is None or turn_index is None:
                return note, "You can rate an answer once it has finished."
            service, _, _, _ = provider()
            rating = 1 if data.liked else -1
            try:
                await service.rate(
                    sid, rating=rating, comment=note.strip() or None, turn_index=turn_index
                )
            except TranscriptNotFoundError:
                return note, "That answer can't be rated in this conversation."
            return "", "Thanks for the feedback!"

        async def escalate(
            history: list[dict[str, Any]], sid: str | None
        ) -> tuple[list[dict[str, Any]], str | None]:
            service, _, secret, _ = provider()
            sid = sid or new_session_id(secret)
            reason = next(
                (m["content"] for m in reversed(history) if m["role"] == "user"), "no question yet"
            )
            told = await service.hand_to_human(sid, str(reason))
            return [*history, {"role": "assistant", "content": told}], sid

        def restart() -> tuple[list[Any], None, dict[int, int], str, str]:
            return [], None, {}, "", ""

        outputs = [chat, box, session, answers, notice]
        box.submit(respond, [box, chat, session, answers], outputs, api_name="ask")
        send.click(respond, [box, chat, session, answers], outputs, api_visibility="private")
        chat.like(rate, [answers, session, comment], [comment, notice], api_name="rate")
        human.click(escalate, [chat, session], [chat, session], api_name="talk_to_a_person")
        fresh.click(
            restart, None, [chat, session, answers, box, notice], api_name="new_conversation"
        )
    return page


def _page_product(request: gr.Request | None) -> str | None:
    """The product the page was opened for (`/?product=FH-TNT-7020`, or its page URL), if any."""
    if request is None:
        return None
    product = dict(request.query_params).get("product", "").strip()
    return product[:2000] or None


def _with_sources(event: Recorded) -> str:
    payload = done_payload(event.turn, event.message_id)
    answer = payload["answer"]
    if not payload["answered"]:
        return str(answer)
    shown = [s for s in payload["sources"] if s["number"]] or payload["sources"][:3]
    lines = [str(answer), "", "**Sources**"]
    for number, source in enumerate(shown, start=1):
        label = source["number"] or number
        target = source["citation"]
        link = f"[{source['title']}]({target})" if target.startswith("http") else source["title"]
        section = source["section"].split(" › ")[-1]
        where = "" if section == source["title"] else f" — {section}"
        lines.append(f"{label}. {link}{where}  \n   _{_snippet(source['snippet'])}_")
    return "\n".join(lines)


def _snippet(text: str, limit: int = 110) -> str:
    """One line of the passage, with the characters Markdown would read as formatting removed."""
    flat = " ".join(text.split()).translate(str.maketrans("", "", "*_`[]<>#|"))
    return flat if len(flat) <= limit else flat[:limit].rsplit(" ", 1)[0] + "…"


def _client(request: gr.Request | None, proxy_hops: int) -> str:
    """The address the page's turns are limited by, as the API's are (the same buckets)."""
    starlette = getattr(request, "request", None) if request is not None else None
    return client_address(starlette, proxy_hops) if starlette is not None else "unknown"
