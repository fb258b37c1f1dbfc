"""Log records leave the process without e-mails, phones, card numbers or signed session ids."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from uvicorn.logging import AccessFormatter

from app.chat.session_ids import new_session_id
from app.observability.log_masking import (
    PersonalDataFilter,
    mask_log_text,
    mask_personal_data_in_logs,
)

CARD = "4111 1111 1111 1111"


@pytest.fixture
def captured() -> Iterator[tuple[logging.Logger, logging.Handler, io.StringIO]]:
    """A logger of its own writing through one handler, as `python -m app` configures it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("tests.log_masking")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        yield logger, handler, stream
    finally:
        logger.removeHandler(handler)


def test_masking_reuses_the_transcript_rules_and_cuts_session_tags() -> None:
    session = new_session_id("secret")
    nonce, tag = session.split(".")
    text = mask_log_text(f"jo@example.com paid with {CARD} at /api/sessions/{session}/messages")
    assert text == f"[email] paid with [card] at /api/sessions/{nonce}.[tag]/messages"
    assert tag not in text


def test_the_installed_filter_masks_messages_arguments_and_tracebacks(
    captured: tuple[logging.Logger, logging.Handler, io.StringIO],
) -> None:
    logger, handler, stream = captured
    mask_personal_data_in_logs()
    mask_personal_data_in_logs()  # idempotent: one filter per handler
    assert sum(isinstance(f, PersonalDataFilter) for f in handler.filters) == 1
    logger.warning("staff sign-in refused for %r", "jo@example.com")
    logger.info("call me on %s, %d turns", "+44 7700 900123", 3)
    logger.info("card %(card)s", {"card": CARD})
    try:
        raise ValueError("bad message from jo@example.com")
    except ValueError:
        logger.exception("turn failed for 020 7946 0018")
    written = stream.getvalue()
    assert "jo@example.com" not in written and "7700 900123" not in written
    assert CARD not in written and "7946 0018" not in written
    assert "refused for '[email]'" in written and "call me on [phone], 3 turns" in written
    assert "card [card]" in written and "ValueError: bad message from [email]" in written


def test_uvicorn_access_lines_keep_their_shape(
    captured: tuple[logging.Logger, logging.Handler, io.StringIO],
) -> None:
    logger, handler, stream = captured
    handler.setFormatter(AccessFormatter('%(client_addr)s "%(request_line)s" %(status_code)s'))
    handler.addFilter(PersonalDataFilter())
    session = new_session_id("secret")
    path = f"/api/sessions/{session}/messages"
    logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "POST", path, "1.1", 200)
    line = stream.getvalue()
    assert line.startswith('127.0.0.1:5000 "POST /api/sessions/') and "200 OK" in line
    assert session not in line and f"{session.split('.')[0]}.[tag]" in line
