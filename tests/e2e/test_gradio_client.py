"""The shopper page's own API, driven with gradio_client like any Gradio app."""

from __future__ import annotations

from gradio_client import Client

from tests.e2e.conftest import LiveServer


def text_of(message: dict[str, object]) -> str:
    content = message["content"]
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def test_a_shopper_asks_through_the_page_and_gets_a_sourced_answer(
    live_server: LiveServer,
) -> None:
    client = Client(f"{live_server.url}/", verbose=False)
    conversation, box, notice = client.predict(
        "How much does the return label cost?", [], api_name="/ask"
    )
    assert [m["role"] for m in conversation] == ["user", "assistant"]
    answer = text_of(conversation[-1])
    assert "**Sources**" in answer and "Returns" in answer
    assert box == "" and notice == ""

    handed = client.predict(conversation, api_name="/talk_to_a_person")
    assert "support team" in text_of(handed[-1])


def test_an_empty_message_is_refused_kindly(live_server: LiveServer) -> None:
    client = Client(f"{live_server.url}/", verbose=False)
    conversation, box, notice = client.predict("   ", [], api_name="/ask")
    assert conversation == []
    assert "empty" in notice
    assert box == "   "  # what the shopper typed stays in the box
