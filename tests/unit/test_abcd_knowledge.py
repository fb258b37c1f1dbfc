"""ABCD's agent guidelines written out as Markdown pages the ordinary loaders ingest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.abcd import write_knowledge
from ingest.loaders import discover, load_file

REPO = Path(__file__).resolve().parents[2]
GUIDELINES = REPO.parent / "shared" / "eval" / "abcd" / "guidelines.json"

TINY = {
    "Product Defect": {
        "description": "refunds and returns",
        "subflows": {
            "Return Due to Size": {
                "instructions": [
                    "In all three cases for return, follow the same set of actions:",
                    "As usual, end by asking if the customer needs any other assistance.",
                ],
                "actions": [
                    {
                        "type": "interaction",
                        "button": "Pull up Account",
                        "text": "Get Full Name or Account ID for [Pull up Account]",
                        "subtext": [],
                    },
                    {
                        "type": "faq/policy",
                        "button": "Membership Privileges",
                        "text": "Confirm their order can be returned.",
                        "subtext": [
                            "Gold members: > Gold members get unlimited returns",
                            "Guest members: > Within the last 30 days <or> Ask for a receipt",
                        ],
                    },
                    {"type": "interaction", "button": "Update Order", "text": "x", "subtext": []},
                ],
            }
        },
    },
    "Single-Item Query": {
        "description": "FAQ questions about jeans",
        "subflows": {"Jeans FAQ": {"instructions": ["Figure out the question."], "actions": []}},
    },
}


def _write(tmp_path: Path, data: object) -> list[Path]:
    source = tmp_path / "guidelines.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    return write_knowledge(source, tmp_path / "kb")


def test_one_markdown_page_per_flow(tmp_path: Path) -> None:
    paths = _write(tmp_path, TINY)

    assert [p.name for p in paths] == ["product-defect.md", "single-item-query.md"]
    text = paths[0].read_text(encoding="utf-8")
    assert text.startswith("# Product Defect\n")
    assert "Topics: refunds and returns." in text
    assert "## Return Due to Size" in text
    assert "In all three cases for return, follow the same set of actions:" in text
    assert "1. Pull up Account: Get Full Name or Account ID for Pull up Account" in text
    assert "[" not in text and "<or>" not in text
    assert "   - Gold members:\n     - Gold members get unlimited returns" in text
    assert "Within the last 30 days, or Ask for a receipt" in text
    assert "3. Update Order\n" in text  # placeholder text "x" dropped, the step kept
    assert text.rstrip().endswith("end by asking if the customer needs any other assistance.")


def test_pages_load_as_documents_with_subflow_sections(tmp_path: Path) -> None:
    _write(tmp_path, TINY)
    root = tmp_path / "kb"

    results = [load_file(p, root=root, max_bytes=10**6) for p in discover(root)]
    documents = [d for r in results for d in r.documents]

    assert [d.id for d in documents] == [
        "policies/product-defect.md",
        "policies/single-item-query.md",
    ]
    assert {d.kind for d in documents} == {"policy"}
    assert documents[0].title == "Product Defect"
    headings = [s.heading for s in documents[0].sections]
    assert ("Product Defect", "Return Due to Size") in headings
    assert documents[1].sections[-1].heading == ("Single-Item Query", "Jeans FAQ")


def test_rejects_a_file_that_is_not_an_object_of_flows(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        _write(tmp_path, ["not", "flows"])


@pytest.mark.skipif(not GUIDELINES.exists(), reason="shared ABCD guidelines not present")
def test_real_guidelines_keep_every_flow_and_subflow(tmp_path: Path) -> None:
    data = json.loads(GUIDELINES.read_text(encoding="utf-8"))

    paths = write_knowledge(GUIDELINES, tmp_path / "kb")

    assert len(paths) == len(data)
    written = {p.read_text(encoding="utf-8").splitlines()[0][2:]: p for p in paths}
    for flow, body in data.items():
        assert flow in written
        text = written[flow].read_text(encoding="utf-8")
        for subflow in body["subflows"]:
            assert f"\n## {subflow}\n" in text, (flow, subflow)
