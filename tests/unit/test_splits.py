"""HetPQA's questions split by product: no product on both sides, the same split every run."""

from __future__ import annotations

import pytest

from evaluation.datasets import Case, abcd_cases, answer_cases
from evaluation.splits import folds, split_by_product


def cases(products: int, per_product: int = 3) -> list[Case]:
    return [
        Case(f"q{p}-{n}", "hetpqa", (), f"question {n}", frozenset({f"P{p}:x"}), product=f"P{p}")
        for p in range(products)
        for n in range(per_product)
    ]


def test_no_product_is_in_both_parts_and_both_parts_are_used() -> None:
    train, held_out = split_by_product(cases(200))
    assert not {c.product for c in train} & {c.product for c in held_out}
    assert len(train) + len(held_out) == 600
    assert 0.25 < len(held_out) / 600 < 0.55  # about HELD_OUT_SHARE of the products


def test_the_split_is_fixed_by_the_product_alone() -> None:
    first = split_by_product(cases(50))
    again = split_by_product(list(reversed(cases(50))))
    assert {c.id for c in first[1]} == {c.id for c in again[1]}


def test_cross_validation_folds_keep_a_product_in_one_fold() -> None:
    train = cases(60)
    for fit, check in folds(train, 4):
        assert not {train[i].product for i in fit} & {train[i].product for i in check}
        assert check


def test_a_case_without_a_product_is_refused() -> None:
    with pytest.raises(ValueError, match="without a product"):
        split_by_product([Case("x", "shop", (), "q", frozenset())])


def test_the_abcd_questions_keep_their_report_part_apart_from_the_later_tuning_part() -> None:
    found = abcd_cases()
    report = [c for c in found if c.part == "report"]
    tuning = [c for c in found if c.part == "tuning"]
    assert len(report) == 70 and len(tuning) >= 60  # the first 70 are the report part
    assert {c.part for c in found} == {"report", "tuning"}
    assert not {c.id for c in report} & {c.id for c in tuning}
    # the same words as a report question are left out of the tuning part
    assert not {c.question.lower() for c in report} & {c.question.lower() for c in tuning}
    assert any(not c.answerable for c in tuning) and any(c.polarity for c in tuning)


def test_the_later_shop_tuning_questions_repeat_no_report_or_fresh_question() -> None:
    found = answer_cases()
    later = [c for c in found if c.id.startswith(("u", "v", "w", "x", "y", "z", "k"))]
    held = [c for c in found if c.part in ("report", "fresh")]
    assert len(later) >= 200 and {c.part for c in later} == {"tuning"}
    assert len({c.id for c in found}) == len(found)
    assert not {c.question.lower() for c in held} & {c.question.lower() for c in later}
    assert sum(not c.answerable for c in later) >= 65
