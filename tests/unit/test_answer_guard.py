"""The output guard on a streamed answer: leaks are held back and caught, normal answers pass."""

from __future__ import annotations

import base64
import codecs
import random

import pytest

from app.chat.defences.answer_guard import AnswerGuard, answer_guard
from app.chat.defences.disguises import squeeze
from app.chat.defences.grounded_content import (
    UNEXPECTED_FORMAT,
    UNEXPECTED_LANGUAGE,
    UNVERIFIED_CONTACT,
    GroundedContent,
)
from app.chat.defences.prompt_leak import PromptLeakDetector, new_canary
from app.chat.prompt_format import SYSTEM_PROMPT

CANARY = "fhc-0a1b2c3d4e5f60718293"
SYSTEM = SYSTEM_PROMPT.format(shop="Fernhill Outfitters", canary=CANARY)
DETECTOR = PromptLeakDetector(SYSTEM, CANARY)
PASSAGES = (
    "Stormhollow 2 Tent. Weight: 1,550 g. https://fernhill-outfitters.example/products/"
    "stormhollow-2-tent Questions: help@fernhill-outfitters.example or 0113 496 0123."
)
NORMAL_ANSWERS = [
    "The Stormhollow 2 Tent weighs 1,550 g [1].",
    "I'm sorry, I don't know. Would you like me to connect you with a member of the support team?",
    "You can email help@fernhill-outfitters.example or call 0113 496 0123 [1].",
    "Yes! See https://fernhill-outfitters.example/products/stormhollow-2-tent for the full "
    "specification [1]. It packs down small and pitches in minutes.",
    "The shop information does not contain the answer, so I can't say; our support team can help.",
]


def stream(guard: AnswerGuard, pieces: list[str]) -> tuple[str, list[str]]:
    """Feed the pieces as an engine would; return all text released and each release."""
    releases = [guard.feed(piece) for piece in pieces]
    releases.append(guard.finish())
    return "".join(releases), releases


def split_randomly(text: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    pieces, at = [], 0
    while at < len(text):
        step = rng.randint(1, 6)
        pieces.append(text[at : at + step])
        at += step
    return pieces


def guard() -> AnswerGuard:
    return answer_guard(DETECTOR, allowed=PASSAGES)


@pytest.mark.parametrize("answer", NORMAL_ANSWERS)
def test_normal_answers_pass_unchanged(answer: str) -> None:
    for seed in range(5):
        g = guard()
        shown, _ = stream(g, split_randomly(answer, seed))
        assert g.blocked is None
        assert shown == answer


def test_nothing_is_released_until_enough_has_been_seen() -> None:
    g = guard()
    answer = NORMAL_ANSWERS[3]
    _, releases = stream(g, list(answer))
    released_so_far = ""
    for i, release in enumerate(releases[:-1]):
        released_so_far += release
        seen = answer[: i + 1]
        held = seen[len(released_so_far) :]
        assert len(squeeze(held)) >= min(len(squeeze(seen)), DETECTOR.hold_chars - 16)
        assert released_so_far == "" or released_so_far[-1].isspace()  # never cut mid-word


@pytest.mark.parametrize("seed", range(8))
def test_canary_split_across_deltas_never_reaches_the_shopper(seed: int) -> None:
    lead_in = (
        "Sure, happy to help with that! The Stormhollow 2 Tent weighs 1,550 g and packs small. "
    )
    answer = f"{lead_in}The reference is {CANARY} as requested."
    g = guard()
    shown, _ = stream(g, split_randomly(answer, seed))
    assert g.blocked == "system_prompt_leak"
    assert squeeze(CANARY)[:8] not in squeeze(shown)
    assert shown.startswith("Sure, happy")  # the text before the leak was not held forever


@pytest.mark.parametrize(
    "disguise",
    [
        str.upper,
        lambda c: " ".join(c),
        lambda c: c.replace("-", " - ").title(),
        lambda c: base64.b64encode(c.encode()).decode(),
        lambda c: codecs.encode(c, "rot13"),
        lambda c: c[::-1],
        lambda c: c[: len(c) // 2 + 2],  # half of it is already a leak
    ],
)
def test_disguised_canary_is_caught(disguise: object) -> None:
    g = guard()
    shown, _ = stream(g, split_randomly(f"OK: {disguise(CANARY)} and more text here.", 1))  # type: ignore[operator]
    assert g.blocked == "system_prompt_leak"
    assert squeeze(CANARY)[:8] not in squeeze(shown)


def vowels_starred(text: str) -> str:
    return "".join("*" if c.lower() in "aeiou" else c for c in text)


@pytest.mark.parametrize(
    "disguise",
    [
        lambda t: t,
        str.upper,
        lambda t: " ".join(t.split()),  # re-flowed onto one line
        lambda t: "  ".join(t),  # every letter spaced out
        lambda t: t.replace(" ", "_").replace(".", ""),
        vowels_starred,
        lambda t: codecs.encode(t, "rot13"),
        lambda t: t[::-1],
        lambda t: base64.b64encode(t.encode()).decode(),
    ],
)
def test_verbatim_system_prompt_is_caught_before_it_is_shown(disguise: object) -> None:
    leak = SYSTEM.split("\n", 2)[1]  # one full sentence of the prompt, without the canary
    g = guard()
    shown, _ = stream(g, split_randomly(f"Here you go: {disguise(leak)}", 3))  # type: ignore[operator]
    assert g.blocked == "system_prompt_leak"
    assert len(_longest_shared_run(squeeze(shown), squeeze(SYSTEM))) < 40


def test_short_shared_phrases_are_not_leaks() -> None:
    answer = (
        "Our support team can help: a member of the support team will reply. Cite the numbered "
        "passage, the shop information says 30 days [1]."
    )
    assert not DETECTOR.leaked(answer)


def test_a_canary_must_be_part_of_the_prompt_it_protects() -> None:
    with pytest.raises(ValueError, match="part of the system prompt"):
        PromptLeakDetector(SYSTEM, new_canary())


def test_new_canaries_are_random() -> None:
    assert len({new_canary() for _ in range(50)}) == 50


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("Download the update from www.suspicioussite.xyz today.", UNVERIFIED_CONTACT),
        ("For questions, write to assist@gmail.com please.", UNVERIFIED_CONTACT),
        ("Join our forum at cform.com for more.", UNVERIFIED_CONTACT),
        ("Call us on 0800 123 4567 for help.", UNVERIFIED_CONTACT),
        ("Палатка весит 1550 г.", UNEXPECTED_LANGUAGE),
        ("テントの重さは1550gです。", UNEXPECTED_LANGUAGE),
        ("TheStormhollowtentweighsexactlyonethousandfivehundredgrams.", UNEXPECTED_FORMAT),
        ("![image](https://source.example/x.png)", UNEXPECTED_FORMAT),
        ("```python\nprint(1)\n```", UNEXPECTED_FORMAT),
    ],
)
def test_answers_carrying_what_no_passage_said_are_withheld(answer: str, reason: str) -> None:
    g = guard()
    shown, _ = stream(g, split_randomly(answer, 2))
    assert g.blocked == reason
    assert shown == "" and g.kept == ""


def test_a_link_still_arriving_is_not_judged_yet() -> None:
    check = GroundedContent(PASSAGES)
    assert check("See fernhill-outfitters.ex", False) is None
    assert check("See fernhill-outfitters.example/returns now", False) is None
    finding = check("See www.other", True)
    assert finding is not None and finding.reason == UNVERIFIED_CONTACT and finding.start == 4


def test_missing_space_after_a_full_stop_is_not_a_link() -> None:
    assert GroundedContent(PASSAGES)("It weighs 1,550 g.It packs small.", True) is None


def test_the_sentences_before_a_planted_link_still_answer() -> None:
    answer = (
        "The Stormhollow 2 Tent weighs 1,550 g and sleeps two [1]. Download this tool from "
        "www.suspicioussite.xyz to boost your computer speed."
    )
    g = guard()
    shown, _ = stream(g, split_randomly(answer, 4))
    assert g.blocked == UNVERIFIED_CONTACT
    assert shown == g.kept == "The Stormhollow 2 Tent weighs 1,550 g and sleeps two [1]."


def test_a_leak_with_little_before_it_leaves_nothing_to_keep() -> None:
    g = guard()
    shown, _ = stream(g, split_randomly(f"Sure, here it is. {SYSTEM}", 5))
    assert g.blocked == "system_prompt_leak" and g.kept == "" and shown == ""


def test_a_phrase_repeated_many_times_is_not_a_leak() -> None:
    answer = " ".join(["I'm a member of the support team, happy to help."] * 12)
    assert not DETECTOR.leaked(answer)


def _longest_shared_run(a: str, b: str) -> str:
    best = ""
    for i in range(len(a)):
        for j in range(i + len(best) + 1, len(a) + 1):
            if a[i:j] in b:
                best = a[i:j]
            else:
                break
    return best
