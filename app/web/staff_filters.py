"""The staff pages' filters: query parameters in, a transcript filter (the list) or a time window
(the knowledge gaps) and readable errors out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

from app.transcripts.reads import TranscriptFilter


@dataclass(frozen=True)
class ListQuery:
    """The list filter as typed (for the form and links) and as parsed (for the queries)."""

    raw: dict[str, str]
    filters: TranscriptFilter
    page: int
    errors: tuple[str, ...]

    def link(self, path: str = "/staff", **extra: int) -> str:
        params = {**self.raw, **{k: str(v) for k, v in extra.items()}}
        return f"{path}?{urlencode(params)}" if params else path


FILTER_FIELDS = ("q", "since", "until", "max_groundedness", "low_rating", "escalated", "unanswered")


def parse_list_query(params: Mapping[str, str]) -> ListQuery:
    """Read the filter from query parameters, collecting a readable error for each bad value."""
    raw = {k: params.get(k, "").strip() for k in FILTER_FIELDS}
    raw = {k: v for k, v in raw.items() if v}
    errors: list[str] = []
    since = _day(raw.get("since"), "From", errors)
    until = _day(raw.get("until"), "To", errors)
    if since and until and until < since:
        errors.append("“To” is before “From”.")
    grounded = _number(raw.get("max_groundedness"), errors)
    flags = {k: _flag(raw.get(k), k, errors) for k in ("low_rating", "escalated", "unanswered")}
    raw.update({k: "on" for k, on in flags.items() if on})
    page_text = params.get("page", "1").strip() or "1"
    page = int(page_text) if page_text.isdigit() and 0 < len(page_text) < 7 else 0
    if page < 1:
        errors.append(f"Page must be a whole number from 1, not “{page_text[:20]}”.")
    if len(raw.get("q", "")) > 200:
        errors.append("The search text is longer than 200 characters.")
    filters = TranscriptFilter(
        since=since,
        # "To" includes that whole day; the last representable day has no end to speak of.
        until=until + timedelta(days=1) if until and until.year < 9999 else None,
        max_groundedness=grounded,
        text=raw.get("q"),
        **flags,
    )
    return ListQuery(raw, filters, max(page, 1), tuple(errors))


def _day(text: str | None, label: str, errors: list[str]) -> datetime | None:
    if text is None:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        errors.append(f"“{label}” must be a date written YYYY-MM-DD, not “{text[:20]}”.")
        return None


def _number(text: str | None, errors: list[str]) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        errors.append(f"Groundedness must be a number from 0 to 1, not “{text[:20]}”.")
        return None
    return value


def _flag(text: str | None, name: str, errors: list[str]) -> bool:
    if text is None or text.lower() in ("0", "off", "false", "no"):
        return False
    if text.lower() in ("1", "on", "true", "yes"):
        return True
    errors.append(f"“{name}” is a checkbox: on or off, not “{text[:20]}”.")
    return False


@dataclass(frozen=True)
class GapQuery:
    """The knowledge-gaps page's window as typed (for the form and links) and as parsed."""

    raw: dict[str, str]
    since: datetime | None
    until: datetime | None  # exclusive: the day after "To"
    errors: tuple[str, ...]

    def link(self, path: str) -> str:
        return f"{path}?{urlencode(self.raw)}" if self.raw else path


def parse_gap_query(params: Mapping[str, str]) -> GapQuery:
    """Read the gaps page's "From" and "To" days (UTC, both inclusive) from query parameters."""
    raw = {k: params.get(k, "").strip() for k in ("since", "until")}
    raw = {k: v for k, v in raw.items() if v}
    errors: list[str] = []
    since = _day(raw.get("since"), "From", errors)
    until = _day(raw.get("until"), "To", errors)
    if since and until and until < since:
        errors.append("“To” is before “From”.")
    end = until + timedelta(days=1) if until and until.year < 9999 else None
    return GapQuery(raw, since, end, tuple(errors))
