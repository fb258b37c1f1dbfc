"""Days of the year a question names and the days a line of the pages states.

"What time does the Collection Point shut on 24 December?" (or on Christmas Eve, which the
reading step reads as 24 December: `app.chat.shoppers_words`) is answered by a line that states
that day: "on 24 and 31 December, phone and live chat close at 14:00", or a span holding it
("orders delivered between 1 November and 24 December"). A line that states other days ("We are
closed on 25 December, 26 December and 1 January") gives them for other days, not the one asked.
"""

from __future__ import annotations

import re

_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
# "May" only as written with its capital: "orders of 12 may be split" names no day
_MONTH = "(?i:" + "|".join(m for m in _MONTHS if m != "may") + ")|May"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
# "24 December", "24th of December", "24 and 31 December", "25, 26 or 27 December"
_DAYS_MONTH = re.compile(
    rf"\b((?:{_DAY}(?:\s*,\s*|\s+(?:and|or|&)\s+))*{_DAY})\s+(?:of\s+)?({_MONTH})\b"
)
# "December 24" ("Dec 24" is left out: the month's full name, then the day)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\s+({_DAY})\b(?!\s*(?:am|pm|:|\d))")
# a span: "between 1 November and 24 December", "from 1 November to 24 December"
_SPAN = re.compile(
    rf"\b(?:between|from)\s+({_DAY})\s+(?:of\s+)?({_MONTH})\s+(?:and|to|until|till|–|-)\s+"
    rf"({_DAY})\s+(?:of\s+)?({_MONTH})\b",
    re.IGNORECASE,
)

Day = tuple[int, int]  # (month, day)


def named_days(text: str) -> set[Day]:
    """The days of the year ``text`` names, as (month, day)."""
    found: set[Day] = set()
    for days, month in _DAYS_MONTH.findall(text):
        found |= {(_month(month), int(d)) for d in re.findall(r"\d{1,2}", days)}
    for month, day in _MONTH_DAY.findall(text):
        found.add((_month(month), int(re.sub(r"\D", "", day))))
    return {d for d in found if 1 <= d[1] <= 31}


def states_day(line: str, day: Day) -> bool:
    """Whether ``line`` states ``day``: names it, or a span that holds it."""
    if day in named_days(line):
        return True
    for first, month, last, end in _SPAN.findall(line):
        start = (_month(month), int(re.sub(r"\D", "", first)))
        stop = (_month(end), int(re.sub(r"\D", "", last)))
        if (start <= day <= stop) if start <= stop else (day >= start or day <= stop):
            return True
    return False


def day_words(text: str) -> str:
    """The first day of the year ``text`` names, as written ("24 December")."""
    found = _DAYS_MONTH.search(text) or _MONTH_DAY.search(text)
    return found.group(0) if found else ""


def _month(name: str) -> int:
    return _MONTHS.index(name.lower()) + 1


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(r"\b(" + "|".join(_WEEKDAYS) + r")s?\b", re.IGNORECASE)
# "Monday to Friday", "Monday–Saturday", "from Monday until Friday"
_WEEKDAY_SPAN = re.compile(
    r"\b("
    + "|".join(_WEEKDAYS)
    + r")s?\s*(?:to|until|till|through|–|-)\s*("
    + "|".join(_WEEKDAYS)
    + r")s?\b",
    re.IGNORECASE,
)
_WEEKEND = re.compile(r"\bweekends?\b", re.IGNORECASE)


def named_weekdays(text: str, *, weekend: bool = True) -> set[int]:
    """The days of the week ``text`` names (0 for Monday), those a span holds and, with
    ``weekend``, the weekend's ("Monday to Friday": 0–4; "at the weekend": 5, 6)."""
    found = {_WEEKDAYS.index(day.lower()) for day in _WEEKDAY.findall(text)}
    return found | spanned_weekdays(text) | ({5, 6} if weekend and _WEEKEND.search(text) else set())


def spanned_weekdays(text: str) -> set[int]:
    """The days of the week the spans ``text`` gives hold ("Monday to Saturday": 0–5)."""
    found: set[int] = set()
    for first, last in _WEEKDAY_SPAN.findall(text):
        start, stop = _WEEKDAYS.index(first.lower()), _WEEKDAYS.index(last.lower())
        found |= set(range(start, stop + 1)) if start <= stop else set()
    return found


def spanned_day_names(text: str) -> set[str]:
    """The names, in lower case, of the days of the week the spans ``text`` gives hold
    ("Monday to Saturday": "tuesday" among them)."""
    return {_WEEKDAYS[day] for day in spanned_weekdays(text)}


def weekday_words(text: str) -> str:
    """The first day of the week ``text`` names, as written ("sunday")."""
    found = _WEEKDAY.search(text)
    return found.group(0) if found else ""
