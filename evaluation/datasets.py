"""Evaluation cases: the sample shop's labelled questions, HetPQA and MTRAG-UN."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from app.index.passage import Passage

DATA = Path(__file__).with_name("data")
SHOP_QUESTIONS = DATA / "shop_questions.jsonl"
# Written after the answer checks existed, by someone who had not read them: report part only.
REPORT_QUESTIONS = DATA / "report_questions.jsonl"
# Written after the product-listing checks (a field the record does not list, a model the shop
# does not sell) existed, by someone who read only the knowledge base: the fresh part.
FRESH_QUESTIONS = DATA / "fresh_questions.jsonl"
# Written later (twenty-second session), from the knowledge base alone, to tune on: more of the
# shop's tuning part (near misses above all), two that repeated an earlier question left out.
TUNING_QUESTIONS = DATA / "shop_tuning_questions.jsonl"
# Written later still (thirty-sixth session), from the knowledge base alone, to tune on: their
# first reading (wrongly declined 0.186, unanswerable declined 0.586) showed the tuning part's
# figures no longer said how the checks meet questions they were not fitted on.
TUNING_QUESTIONS_2 = DATA / "shop_tuning_questions_2.jsonl"
# Written in the thirty-seventh session by two helpers, from the knowledge base alone, to tune
# on: x (117; three that repeated an earlier question's words left out) and y (80, read only as
# totals while x was fitted on). First readings (wrongly declined, unanswerable declined): x
# 0.229 / 0.441, y 0.250 / 0.625, again far from the older tuning part's 0.046 / 0.754.
TUNING_QUESTIONS_3 = DATA / "shop_tuning_questions_3.jsonl"
# Written in the thirty-ninth session by a helper, from the knowledge base alone, to tune on:
# z (116; four that repeated an earlier question's words left out). Those whose number is a
# multiple of three (38) were kept as a check, read only as totals while the rest was fitted on.
TUNING_QUESTIONS_4 = DATA / "shop_tuning_questions_4.jsonl"
# Written in the fortieth session by a helper, from the knowledge base alone, to tune on: k (101;
# nineteen that repeated an earlier question's words left out). First readings (wrongly
# declined, unanswerable declined): the 68 fitted on 0.298 / 0.667; the 33 whose number is a
# multiple of three, kept as a check and read only as totals, 0.292 / 0.444.
TUNING_QUESTIONS_5 = DATA / "shop_tuning_questions_5.jsonl"
# Questions on the ABCD agent guidelines, a knowledge base the checks were not written for.
ABCD_QUESTIONS = DATA / "abcd_questions.jsonl"
# Written later (twenty-first session), from the guidelines alone, to tune on: ABCD's tuning part.
ABCD_TUNING_QUESTIONS = DATA / "abcd_tuning_questions.jsonl"
# Shoppers' everyday requests (Bitext), by intent, with the facts that answer each intent.
BITEXT_INTENTS = DATA / "bitext_intents.json"
BITEXT_PER_INTENT = 12  # messages drawn per intent: the first half tuning, the rest report
EVAL_DATA_ENV = "SHOPDESK_EVAL_DATA"


def default_eval_data() -> Path:
    """Where the public sets are: ``$SHOPDESK_EVAL_DATA``, else ``../shared/eval`` from the
    current directory (the repository root, where the command is run)."""
    return Path(os.environ.get(EVAL_DATA_ENV) or Path("..") / "shared" / "eval")


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    history: tuple[str, ...]
    question: str
    relevant: frozenset[str]  # document ids
    key_facts: tuple[str, ...] = ()
    answerable: bool = True
    # "tuning": rules and thresholds may be fitted on it; "report" and "fresh": never
    part: str = "tuning"
    polarity: str | None = None  # "yes" / "no": the right answer to a yes/no question
    product: str = ""  # the product the question is about, where the set says (HetPQA's ASIN)
    any_fact: bool = False  # any one of the key facts is the answer (an intent's)


def shop_cases(path: Path = SHOP_QUESTIONS, *, part: str = "report") -> list[Case]:
    """Labelled questions; a row without its own ``part`` belongs to ``part``."""
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            cases.append(
                Case(
                    id=row["id"],
                    category=row["category"],
                    history=tuple(row["history"]),
                    question=row["question"],
                    relevant=frozenset(row["documents"]),
                    key_facts=tuple(row["key_facts"]),
                    answerable=bool(row["answerable"]),
                    part=row.get("part", part),
                    polarity=row.get("polarity"),
                )
            )
    return cases


def answer_cases() -> list[Case]:
    """Every labelled question on the sample shop: the split set, the later report questions,
    the fresh ones and the five later sets of tuning ones."""
    return (
        shop_cases()
        + shop_cases(REPORT_QUESTIONS, part="report")
        + shop_cases(FRESH_QUESTIONS, part="fresh")
        + shop_cases(TUNING_QUESTIONS, part="tuning")
        + shop_cases(TUNING_QUESTIONS_2, part="tuning")
        + shop_cases(TUNING_QUESTIONS_3, part="tuning")
        + shop_cases(TUNING_QUESTIONS_4, part="tuning")
        + shop_cases(TUNING_QUESTIONS_5, part="tuning")
    )


def abcd_cases() -> list[Case]:
    """The questions on the ABCD guidelines: the first 70 (report part, never tuned on) and the
    later tuning part."""
    return shop_cases(ABCD_QUESTIONS, part="report") + shop_cases(
        ABCD_TUNING_QUESTIONS, part="tuning"
    )


def intent_cases(path: Path, per_intent: int = BITEXT_PER_INTENT) -> list[Case]:
    """Shoppers' everyday requests from the Bitext set (``path``: its CSV), ``per_intent`` of
    each intent `BITEXT_INTENTS` answers, drawn in a fixed order (by a hash of the message, so
    the same on every machine), without the set's placeholders ("{{Order Number}}"); the first
    half of each intent's is the tuning part, the rest the report part."""
    facts = json.loads(BITEXT_INTENTS.read_text(encoding="utf-8"))["intents"]
    messages: dict[str, set[str]] = {intent: set() for intent in facts}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            text = row["instruction"].strip()
            if row["intent"] in messages and text and "{{" not in text:
                messages[row["intent"]].add(text)
    cases = []
    for intent, found in messages.items():
        drawn = sorted(found, key=lambda t: hashlib.sha1(t.encode()).hexdigest())[:per_intent]
        for number, text in enumerate(drawn):
            part = "tuning" if number < per_intent // 2 else "report"
            case_id, category = f"bitext-{intent}-{number}", f"intent:{intent}"
            answer = tuple(facts[intent])
            case = Case(case_id, category, (), text, frozenset(), answer, any_fact=True)
            cases.append(dataclasses.replace(case, part=part))
    return cases


def hetpqa(path: Path) -> tuple[list[Passage], list[Case]]:
    """Every candidate is a passage; each question's relevant ones are those labelled 1."""
    passages: dict[str, Passage] = {}
    relevant: dict[str, set[str]] = {}
    questions: dict[str, tuple[str, str]] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            pid = f"{row['ASIN']}:{row['qa_pair_id']}"
            text = row["candidate"].strip()
            kind = HETPQA_KINDS.get(row["source"] or "", "page")
            # the product id stands for the product's name as its passages' title
            passages[pid] = _passage(pid, text, kind, title=row["ASIN"])
            questions[row["qid"]] = (row["question"], row["ASIN"])
            if row["label"] == "1":
                relevant.setdefault(row["qid"], set()).add(pid)
    cases = [
        Case(
            f"hetpqa-{qid}",
            "hetpqa",
            (),
            questions[qid][0],
            frozenset(ids),
            product=questions[qid][1],
        )
        for qid, ids in relevant.items()
    ]
    return list(passages.values()), cases


def mtrag(path: Path) -> tuple[list[Passage], list[Case]]:
    """Corpus: every task's gold passages; cases: answerable tasks after the first turn."""
    passages: dict[str, Passage] = {}
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        task = json.loads(line)
        for ctx in task["contexts"]:
            passages.setdefault(ctx["document_id"], _passage(ctx["document_id"], ctx["text"]))
        users = [t["text"] for t in task["input"] if t["speaker"] == "user"]
        if "ANSWERABLE" in task["answerability"] and len(users) > 1 and task["contexts"]:
            cases.append(
                Case(
                    task["task_id"],
                    "mtrag_follow_up",
                    tuple(users[:-1][-2:]),
                    users[-1],
                    frozenset(c["document_id"] for c in task["contexts"]),
                )
            )
    return list(passages.values()), cases


# HetPQA's evidence sources as passage kinds: shoppers' Q&A, on-site and plain descriptions,
# attributes and bullet points (specs), reviews.
HETPQA_KINDS = {
    "CQA": "qa",
    "OSP": "description",
    "Desc": "description",
    "attribute": "spec",
    "bullet": "spec",
    "review": "review",
}


def _passage(pid: str, text: str, kind: str = "page", *, title: str = "") -> Passage:
    text = text.strip()
    return Passage(pid, pid, "eval", title, "", "", "", kind, text, text, pid, 0)
