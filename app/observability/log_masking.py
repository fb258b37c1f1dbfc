"""Personal data and session credentials kept out of the logs.

Log lines quote what shoppers and staff typed (a refused sign-in's user name, an error about a
message) and the URLs they called. The filter masks e-mail addresses, phone and card numbers the
same way stored transcripts are masked, and cuts the signature off session ids (a full id in an
access-log URL would let anyone who reads the log open that conversation's history).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

from app.transcripts.masking import mask_personal_data

# A session id from app.chat.session_ids: 24 base64url characters, a dot, a 16-character tag.
_SESSION_ID = re.compile(r"(?<![\w-])([\w-]{24})\.[\w-]{16}(?![\w-])")


def mask_log_text(text: str) -> str:
    """``text`` with personal data masked and session ids reduced to their unsigned half."""
    return _SESSION_ID.sub(r"\1.[tag]", mask_personal_data(text))


class PersonalDataFilter(logging.Filter):
    """Masks each record's message, its arguments and its exception text.

    Arguments are masked one by one rather than merged into the message, because some formatters
    (uvicorn's access log) read them back as a tuple.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = mask_log_text(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_masked(value) for value in record.args)
        elif isinstance(record.args, Mapping):
            record.args = {key: _masked(value) for key, value in record.args.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_log_text(record.exc_text)
        return True


def _masked(value: object) -> object:
    """The value itself when its text holds nothing to mask (numbers stay numbers for ``%d``)."""
    if value is None or isinstance(value, int | float):
        return value
    try:
        text = str(value)
    except Exception:  # an object that cannot describe itself has nothing to leak here
        return value
    masked = mask_log_text(text)
    return value if masked == text else masked


def mask_personal_data_in_logs() -> None:
    """Put the filter on every handler there is now: the root logger's and those of loggers
    that do not propagate to it (uvicorn's access log). Calling it again adds nothing."""
    loggers: list[logging.Logger] = [logging.getLogger()]
    loggers += [
        logger
        for logger in logging.Logger.manager.loggerDict.values()
        if isinstance(logger, logging.Logger)
    ]
    for logger in loggers:
        for handler in logger.handlers:
            if not any(isinstance(f, PersonalDataFilter) for f in handler.filters):
                handler.addFilter(PersonalDataFilter())
