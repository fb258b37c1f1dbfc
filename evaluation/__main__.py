"""`python -m evaluation`: retrieval and answer quality on labelled shop questions and public sets.

Retrieval (every set): the service's retriever in each of its variants, so what each improvement
buys is measured on the same cases in the same run, and a relevance-floor sweep. Answers (the
shop's set, shoppers' everyday requests from Bitext by intent, the ABCD guidelines): the real
chat service, engine included, answers every question and is scored.
Writes bench-results/eval.json and eval.md. Runs on a fresh machine after set-up, from the
repository root; the public sets (HetPQA, MTRAG-UN, ABCD, Bitext) are read from --eval-data.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from app.embedding.factory import build_embedder
from app.retrieval.published_index import PublishedIndex
from app.retrieval.rerank import LearnedRanker
from app.retrieval.retriever import IndexSource
from app.settings import Settings
from evaluation import datasets, splits
from evaluation.abcd import write_knowledge
from evaluation.answer_eval import evaluate_answers, summarise
from evaluation.datasets import EVAL_DATA_ENV, default_eval_data
from evaluation.retrieval_eval import (
    PAGE_VARIANT,
    SERVICE,
    InMemoryIndex,
    evaluate_retrieval,
    recommended_floor,
    variants,
)
from evaluation.retrieval_eval import summarise as retrieval_summary
from ingest.pipeline import run_ingest

REPO = Path(__file__).resolve().parents[1]
MAX_WRONGLY_REFUSED = 0.01  # the floor may turn away at most 1 % of answerable questions
TUNED = " [tuned]"  # the variants' names with the embedder of --embedder


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--sets", default="shop,hetpqa,mtrag", help="retrieval sets")
    parser.add_argument(
        "--answers", action=argparse.BooleanOptionalAction, default=True,
        help="also answer the shop's questions with the real engine (default: yes)",
    )  # fmt: skip
    parser.add_argument("--limit", type=int, default=0, help="only the first N shop questions")
    parser.add_argument(
        "--part", choices=("all", "tuning", "report", "fresh"), default="all",
        help="answer only this part of the labelled questions (tuning: for development)",
    )  # fmt: skip
    parser.add_argument(
        "--eval-data", type=Path, metavar="DIR",
        help="folder of the public sets (hetpqa/, mtrag_un/, abcd/); a set that is not there is "
        f"skipped (default: ${EVAL_DATA_ENV} if set, else ../shared/eval from the current "
        f"directory, right when run from the repository root; now: {default_eval_data()})",
    )  # fmt: skip
    parser.add_argument(
        "--ranker", type=Path, metavar="MODEL",
        help="also score the learned second stage in this model file (python -m training.ranker) "
        "as the variant hybrid+rewrite+ranker; HetPQA is then also scored on its held-out products",
    )  # fmt: skip
    parser.add_argument(
        "--embedder", type=Path, metavar="DIR",
        help="also score every variant with this embedder folder (python -m training.embedder) "
        f"on an index of its own, as 'VARIANT{TUNED}'; HetPQA is then also scored on its "
        "held-out products",
    )  # fmt: skip
    parser.add_argument("--out-dir", type=Path, default=REPO / "bench-results")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.eval_data is not None and not args.eval_data.is_dir():
        parser.error(f"--eval-data {args.eval_data}: no such folder")
    if args.embedder is not None and not (args.embedder / "config.json").exists():
        parser.error(f"--embedder {args.embedder}: not a sentence-transformers folder")
    eval_data: Path = args.eval_data or default_eval_data()

    settings = Settings(knowledge_dir=REPO / "knowledge")
    embedder = build_embedder(settings)
    ranker = LearnedRanker.load(args.ranker) if args.ranker else None
    configs = variants(settings.lexical_weight, 2, ranker)
    results: dict[str, Any] = {
        "settings": {
            "relevance_floor": settings.relevance_floor,
            "history_weights": settings.history_weights,
            "lexical_weight": settings.lexical_weight,
            "generator": settings.generator_model,
            "top_k": settings.top_k,
        },
        "retrieval": {},
    }
    # each first stage: its label's suffix and its embedder (each set is indexed by each)
    embedders = {"": embedder}
    if args.embedder:
        tuned = settings.model_copy(update={"embedder_model": str(args.embedder)})
        embedders[TUNED] = build_embedder(tuned)
        results["settings"]["tuned_embedder"] = embedders[TUNED].model_id
    wanted = set(args.sets.split(","))
    shop_cases = datasets.shop_cases()[: args.limit or None]
    answer_cases = [c for c in datasets.answer_cases() if args.part in ("all", c.part)]
    answer_cases = answer_cases[: args.limit or None]

    def retrieval(
        name: str,
        cases: list[datasets.Case],
        indexes: dict[str, IndexSource],
        *,
        trained_on: bool = False,
    ) -> None:
        """Every variant with every embedder on ``cases``; the learned parts (the ranker, the
        tuned embedder) left out where they saw some of them."""
        results["retrieval"][name] = {
            config.name + label: asyncio.run(
                evaluate_retrieval(
                    cases,
                    index=indexes[label],
                    embedder=embedders[label],
                    weights=settings.history_weights,
                    floor=settings.relevance_floor,
                    config=config,
                )
            )
            for label in indexes
            for config in configs
            if not (trained_on and (config.ranker is not None or label))
        }

    with tempfile.TemporaryDirectory() as scratch:
        shop = settings.model_copy(update={"data_dir": Path(scratch)})
        run_ingest(shop, embedder)
        if "shop" in wanted:
            shop_indexes: dict[str, IndexSource] = {"": PublishedIndex(shop.index_dir)}
            if TUNED in embedders:  # its own index: its vectors are not the packaged model's
                own = shop.model_copy(update={"data_dir": Path(scratch) / "tuned"})
                run_ingest(own, embedders[TUNED])
                shop_indexes[TUNED] = PublishedIndex(own.index_dir)
            retrieval("shop", shop_cases, shop_indexes)
            # the questions nothing was tuned on: where a ranker is judged on the shop
            report_cases = [c for c in datasets.answer_cases() if c.part == "report"]
            retrieval("shop_report", report_cases[: args.limit or None], shop_indexes)
            sweep = results["retrieval"]["shop"][SERVICE]["floor_sweep"]
            results["recommended_floor"] = recommended_floor(
                sweep, max_wrongly_refused=MAX_WRONGLY_REFUSED
            )
        if args.answers:
            results["answers"] = asyncio.run(_answers(shop, answer_cases))
            bitext = eval_data / "bitext" / BITEXT_CSV
            if bitext.exists():  # shoppers' everyday requests, by intent, on the same pages
                intents = [c for c in datasets.intent_cases(bitext) if args.part in ("all", c.part)]
                results["answers_intents"] = asyncio.run(
                    _answers(shop, intents[: args.limit or None])
                )
    guidelines = eval_data / "abcd" / "guidelines.json"
    if args.answers and guidelines.exists() and args.part != "fresh":
        with tempfile.TemporaryDirectory() as scratch:
            abcd = settings.model_copy(
                update={"data_dir": Path(scratch) / "data", "knowledge_dir": Path(scratch) / "kb"}
            )
            write_knowledge(guidelines, abcd.knowledge_dir)
            run_ingest(abcd, embedder)
            abcd_cases = [c for c in datasets.abcd_cases() if args.part in ("all", c.part)]
            abcd_cases = abcd_cases[: args.limit or None]
            results["answers_abcd"] = asyncio.run(_answers(abcd, abcd_cases))
    for name, loader, path in (
        ("hetpqa", datasets.hetpqa, eval_data / "hetpqa" / "evidence_ranking" / "dev.csv"),
        ("mtrag", datasets.mtrag, eval_data / "mtrag_un" / "reference.jsonl"),
    ):
        if name in wanted and path.exists():
            passages, cases = loader(path)
            indexes: dict[str, IndexSource] = {
                label: InMemoryIndex(e, passages, name) for label, e in embedders.items()
            }
            if name == "hetpqa":  # the learned parts trained on the other products: apart
                _, held_out = splits.split_by_product(cases)
                retrieval("hetpqa_held_out", held_out, indexes)
                results["retrieval"]["hetpqa_held_out"]["corpus"] = len(passages)
            retrieval(name, cases, indexes, trained_on=name == "hetpqa")
            results["retrieval"][name]["corpus"] = len(passages)

    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "eval.json").write_text(json.dumps(results, indent=2, ensure_ascii=False))
    report = markdown(results)
    (args.out_dir / "eval.md").write_text(report)
    print(report)
    print(f"written: {args.out_dir / 'eval.json'}, {args.out_dir / 'eval.md'}")
    return 0


async def _answers(settings: Settings, cases: list[datasets.Case]) -> dict[str, Any]:
    """Answer every case with the real service, scored separately for each part of the set."""
    from app.container import build_container

    async with build_container(settings) as container:
        scored = await evaluate_answers(cases, container.chat)
    rows = scored["rows"]
    parts = {part: [r for r in rows if r["part"] == part] for part in PARTS}
    return {part: summarise(found) for part, found in parts.items() if found}


PARTS = ("report", "fresh", "tuning")
BITEXT_CSV = "Bitext_Sample_Customer_Support_Training_Dataset.csv"


COLUMNS = ("cases", "hit@1", "hit@5", "recall@5", "recall@10", "mrr", "ndcg@10")
REFUSALS = ("wrongly_refused", "refused_unanswerable")
ANSWER_COLUMNS = (
    "cases",
    "key_facts",
    "all_key_facts",
    "wrongly_declined",
    "hedged",
    "declined_unanswerable",
    "fabricated_quotes",
    "unsupported_figures",
    "wrong_polarity",
    "polarity_stated",
    "scaffolding_shown",
    "check_ms_p50",
    "check_ms_p95",
    "cites",
    "citation_precision",
    "groundedness",
)


def markdown(results: dict[str, Any]) -> str:
    """Variants side by side per set, the service's variant per category, the floor sweep, and
    the answer checks per category."""
    knobs = ", ".join(f"{k} {v}" for k, v in results["settings"].items())
    lines = [f"Settings: {knobs}.", ""]
    for name, by_variant in results["retrieval"].items():
        lines += [f"### Retrieval: {name}", "", *_table("variant", COLUMNS + REFUSALS)]
        lines += [
            _row(config, by_variant[config]["overall"], COLUMNS + REFUSALS)
            for config in by_variant
            if config != "corpus"
        ]
        page = by_variant.get(PAGE_VARIANT, {}).get("with_product")
        if page:
            lines += ["", "Only the questions with a product, with and without it given:", ""]
            lines += _table("variant", COLUMNS)
            ids = {r["id"] for r in by_variant[PAGE_VARIANT]["rows"] if r["product_given"]}
            alone = [r for r in by_variant[SERVICE]["rows"] if r["id"] in ids]
            lines.append(_row(SERVICE, retrieval_summary(alone)["overall"], COLUMNS))
            lines.append(_row(PAGE_VARIANT, page["overall"], COLUMNS))
            follow = page["by_category"].get("follow_up")
            if follow:
                lines.append(_row(f"{PAGE_VARIANT}: follow-ups", follow, COLUMNS))
        categories = by_variant[SERVICE]["by_category"]
        if len(categories) > 1:
            lines += ["", f"{SERVICE}, per category:", "", *_table("category", COLUMNS + REFUSALS)]
            lines += [_row(c, m, COLUMNS + REFUSALS) for c, m in categories.items()]
        sweep = by_variant[SERVICE]["floor_sweep"]
        if name == "shop":
            lines += ["", f"Relevance floor sweep ({SERVICE}):", "", *_table("floor", REFUSALS)]
            lines += [_row(f"{p['floor']:.2f}", p, REFUSALS) for p in sweep]
            lines += [
                "",
                f"Highest floor refusing at most {MAX_WRONGLY_REFUSED:.0%} of answerable "
                f"questions: {results['recommended_floor']:.2f}.",
            ]
        lines.append("")
    for key, name in (
        ("answers", "shop"),
        ("answers_intents", "shoppers' everyday requests (Bitext intents)"),
        ("answers_abcd", "ABCD guidelines"),
    ):
        for part, answers in results.get(key, {}).items():
            if not answers["rows"]:
                continue
            lines += [f"### Answers: {name}, {part} part (real engine)", ""]
            lines += _table("category", ANSWER_COLUMNS)
            lines.append(_row("**all**", answers["overall"], ANSWER_COLUMNS))
            lines += [_row(c, m, ANSWER_COLUMNS) for c, m in answers["by_category"].items()]
            lines.append("")
    return "\n".join(lines)


def _table(label: str, columns: tuple[str, ...]) -> list[str]:
    return [f"| {label} | " + " | ".join(columns) + " |", "| --- |" + " ---: |" * len(columns)]


def _row(label: str, metrics: dict[str, Any], columns: tuple[str, ...]) -> str:
    cells = ["" if metrics.get(c) is None else str(metrics[c]) for c in columns]
    return f"| {label} | " + " | ".join(cells) + " |"


if __name__ == "__main__":
    sys.exit(main())
