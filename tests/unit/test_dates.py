"""Days of the year named by a question and stated by a line."""

from __future__ import annotations

from app.chat.dates import (
    day_words,
    named_days,
    named_weekdays,
    spanned_day_names,
    spanned_weekdays,
    states_day,
    weekday_words,
)


def test_days_are_read_however_they_are_written() -> None:
    assert named_days("on 24 and 31 December, phone and live chat close at 14:00") == {
        (12, 24),
        (12, 31),
    }
    assert named_days("closed on 25 December, 26 December and 1 January") == {
        (12, 25),
        (12, 26),
        (1, 1),
    }
    assert named_days("is it open on the 24th of december?") == {(12, 24)}
    assert named_days("December 24th?") == {(12, 24)}
    assert named_days("orders of 12 may be split") == set()  # "may" is no month in lower case
    assert named_days("open until 14:00 on Fridays") == set()
    assert day_words("are you open on 24th of December?") == "24th of December"


def test_a_span_states_the_days_between_its_ends() -> None:
    line = "Orders delivered between 1 November and 24 December can be returned until 31 January."
    assert states_day(line, (12, 10)) and states_day(line, (1, 31))
    assert not states_day(line, (12, 27))
    assert states_day("from 20 December to 5 January", (1, 2))  # across the new year


def test_days_of_the_week_are_read_with_their_spans_and_the_weekend() -> None:
    assert named_weekdays("do u do sunday delivery?") == {6}
    assert named_weekdays("Orders placed by 14:00 Monday to Friday") == {0, 1, 2, 3, 4}
    assert named_weekdays("open Monday–Saturday 09:00–17:30") == {0, 1, 2, 3, 4, 5}
    assert named_weekdays("orders placed at the weekend") == {5, 6}
    assert named_weekdays("need it for the weekend", weekend=False) == set()
    assert named_weekdays("Next Working Day delivery") == set()
    assert weekday_words("can I collect it on Sundays?") == "Sundays"


def test_a_span_of_days_of_the_week_is_told_from_a_day_named_alone() -> None:
    line = "open Monday to Saturday; orders placed on a Sunday are ready the next opening day"
    assert spanned_weekdays(line) == {0, 1, 2, 3, 4, 5}
    assert named_weekdays(line) == {0, 1, 2, 3, 4, 5, 6}


def test_the_names_of_the_days_a_span_holds() -> None:
    line = "Orders placed between 09:00 and 15:00 Monday to Saturday are ready within 2 hours."
    assert spanned_day_names(line) == {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"
    }  # fmt: skip
    assert spanned_day_names("Closed on Sundays.") == set()
