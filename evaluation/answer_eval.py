"""Answer-level checks: the real chat service answers every labelled question, and is scored.

For each case the conversation's earlier questions are asked first (so a follow-up is answered
with the history the service really built), then the question itself. Scores, per case:

- key facts: share of the expected facts (a price, a weight, "does not fit") found in the answer,
  compared without case, spaces or thousands separators;
- citations: share of the passages the answer cites that belong to a document labelled as
  answering the question (precision), and whether it cites at all;
- groundedness: the service's own share of answer words supported by the passages;
- refusal: an unanswerable question should be declined (nothing retrieved, or the answer says it
  does not know); an answerable one should not be; *hedged* counts the answers that show the
  closest lines as such and offer a person (a decline that still shows the shop's words);
- fabricated quotes: quoted text (quotation marks or block quotes) not verbatim in the passages
  the turn was given;
- unsupported figures: a number in the answer found in neither its passages nor the question;
- polarity (yes/no questions): the yes or no the answer opens with (said from the shop's line),
  else the one the model's words state, against the label;
- scaffolding: the prompt's layout (fences, role labels) shown to the shopper.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import uuid
from collections.abc import Sequence
from typing import Any

from app.chat.citations import MARKER
from app.chat.claims import declines, numbers
from app.chat.outcome import LOW_GROUNDEDNESS_NOTE, Done, TurnOutcome
from app.chat.quotes import fabricated_quotes
from app.chat.scaffolding import scaffolding_start
from app.chat.service import ChatService
from evaluation.datasets import Case
from evaluation.metrics import overall_and_by_category

_SQUASH = re.compile(r"[\s,\u00a0\u2009\u202f]+")


def facts_found(answer: str, facts: Sequence[str]) -> float:
    """Share of ``facts`` in ``answer``, ignoring case, spaces and thousands separators."""
    if not facts:
        return 1.0
    text = _squash(answer)
    return sum(1 for fact in facts if _squash(fact) in text) / len(facts)


_YES_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
# "you can't", "it doesn't", "we do": a pronoun with a verb that answers yes or no
_ANSWERING = re.compile(
    r"\b(?:you|we|it|they|this|these|that|those|i)\s+(?:(?:can|do|does|will|would|is|are|"
    r"should|may|could|have|has)(?P<neg>n't|'t|’t|\s+not|\s+never|\s+no longer)?|"
    r"(?P<cannot>cannot|won't|won’t)|"
    r"(?:fits?|includes?|comes?))\b",
    re.IGNORECASE,
)


def stated_polarity(model_text: str) -> str | None:
    """The yes or no the model's first sentence states ("yes", "no"), or None when it states
    neither (an answer made of the shop's quoted lines states none)."""
    first = re.split(r"(?<=[.!?])\s|\n", model_text.strip(), maxsplit=1)[0]
    if not first:
        return None
    explicit = _YES_NO.match(first)
    if explicit:
        return explicit.group(1).lower()
    stated = {
        "no" if answering.group("neg") or answering.group("cannot") else "yes"
        for answering in _ANSWERING.finditer(first)
    }
    # "It is designed to breathe, but it does not have a waterproof membrane": both, so the
    # sentence states no plain yes or no
    return stated.pop() if len(stated) == 1 else None


def answer_polarity(answer: str, model_text: str) -> str | None:
    """The yes or no the shopper reads first: the answer's opening "Yes." or "No." (said from
    the shop's line), else what the model's words state. The composed answer's lead-in ("The
    closest I can find is …") is no yes."""
    opening = _YES_NO.match(answer)
    return opening.group(1).lower() if opening else stated_polarity(model_text)


def unsupported_figures(outcome: TurnOutcome) -> list[str]:
    """Numbers in the answer that neither its passages (their titles, section headings and
    text: a table's answer says the heading it is under, "Zone 1: UK mainland") nor the
    question hold."""
    given = " ".join(
        f"{h.passage.title} {h.passage.section} {h.passage.text}" for h in outcome.passages
    )
    known = numbers(f"{given} {outcome.question}")
    said = MARKER.sub(" ", outcome.answer)
    return sorted(n for n in numbers(said) if n not in known)


def _squash(text: str) -> str:
    return _SQUASH.sub("", text.lower().replace("’", "'"))


async def evaluate_answers(
    cases: Sequence[Case], chat: ChatService, *, concurrency: int = 16
) -> dict[str, Any]:
    """Ask every case through ``chat`` (``concurrency`` conversations at once) and score it."""
    gate = asyncio.Semaphore(concurrency)

    async def one(case: Case) -> dict[str, Any]:
        async with gate:
            session = f"eval-{uuid.uuid4().hex}"
            for earlier in case.history:
                await _ask(chat, session, earlier)
            return score(case, await _ask(chat, session, case.question))

    rows = await asyncio.gather(*(one(case) for case in cases))
    return summarise(list(rows))


async def _ask(chat: ChatService, session: str, question: str) -> TurnOutcome:
    async for event in chat.turn(session, question):
        if isinstance(event, Done):
            return event.outcome
    raise RuntimeError("the chat turn ended without an outcome")


def score(case: Case, outcome: TurnOutcome) -> dict[str, Any]:
    # what declines is the model's own words or the service's note (the caution note offers a
    # person too, but it is not a decline); the shop's quoted lines may say "a member of the team"
    note = "" if outcome.note == LOW_GROUNDEDNESS_NOTE.strip() else outcome.note
    declined = not outcome.answered or declines(outcome.model_text) or declines(note)
    cited = {c.passage.passage.document_id for c in outcome.citations}
    row: dict[str, Any] = {
        "id": case.id,
        "category": case.category,
        "part": case.part,
        "answerable": case.answerable,
        "question": case.question,
        "answer": outcome.answer,
        "model_text": outcome.model_text,
        "dropped": [(d.reason, d.text) for d in outcome.dropped],
        "declined": declined,
        "hedged": outcome.declined == "partial",
        "declined_reason": outcome.declined,
        "passages": [(h.passage.id, round(h.score, 3)) for h in outcome.passages],
        "cites": bool(cited),
        "groundedness": round(outcome.groundedness, 3),
        "fabricated_quotes": fabricated_quotes(outcome.answer, outcome.passages),
        "unsupported_figures": unsupported_figures(outcome),
        "scaffolding": scaffolding_start(outcome.answer) is not None,
        "check_ms": round(
            1000 * (outcome.timings.get("evidence", 0.0) + outcome.timings.get("claims", 0.0)), 2
        ),
    }
    if case.polarity is not None:
        row["stated_polarity"] = answer_polarity(outcome.answer, outcome.model_text)
        row["wrong_polarity"] = row["stated_polarity"] not in (None, case.polarity)
    if case.answerable:
        row["key_facts"] = facts_found(outcome.answer, case.key_facts)
        if case.any_fact:  # an intent's facts: any one of them answers it
            row["key_facts"] = float(row["key_facts"] > 0)
        row["all_key_facts"] = float(row["key_facts"] == 1.0)
        if cited:
            row["citation_precision"] = len(cited & case.relevant) / len(cited)
    return row


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def means(subset: list[dict[str, Any]]) -> dict[str, Any]:
        answerable = [r for r in subset if r["answerable"]]
        unanswerable = [r for r in subset if not r["answerable"]]
        result: dict[str, Any] = {"cases": len(subset)}
        if answerable:
            for name in ("key_facts", "all_key_facts"):
                result[name] = _mean(r[name] for r in answerable)
            precise = [r["citation_precision"] for r in answerable if "citation_precision" in r]
            result["cites"] = _mean(float(r["cites"]) for r in answerable)
            result["citation_precision"] = _mean(precise) if precise else None
            answered = [r for r in answerable if not r["declined"]]
            result["groundedness"] = (
                _mean(r["groundedness"] for r in answered) if answered else None
            )
            result["wrongly_declined"] = _mean(float(r["declined"]) for r in answerable)
            result["hedged"] = _mean(float(r["hedged"]) for r in answerable)
        if unanswerable:
            result["declined_unanswerable"] = _mean(float(r["declined"]) for r in unanswerable)
        result["fabricated_quotes"] = sum(len(r["fabricated_quotes"]) for r in subset)
        result["unsupported_figures"] = _mean(float(bool(r["unsupported_figures"])) for r in subset)
        result["scaffolding_shown"] = sum(r["scaffolding"] for r in subset)
        costs = sorted(r["check_ms"] for r in subset)
        result["check_ms_p50"] = costs[len(costs) // 2]
        result["check_ms_p95"] = costs[min(len(costs) - 1, int(0.95 * len(costs)))]
        polar = [r for r in subset if "wrong_polarity" in r]
        if polar:
            result["wrong_polarity"] = _mean(float(r["wrong_polarity"]) for r in polar)
            result["polarity_stated"] = _mean(
                float(r["stated_polarity"] is not None) for r in polar
            )
        return result

    return overall_and_by_category(rows, means)


def _mean(values: Any) -> float:
    return round(statistics.fmean(values), 3)
