from __future__ import annotations

import itertools

from ingest.chunking import ChunkingPolicy, chunk_document, pack, section_header
from ingest.documents import Document, Section


def words(text: str) -> int:
    """A stand-in tokenizer: one token per word (the real one is tested in integration)."""
    return len(text.split())


def test_short_section_is_one_chunk_with_its_heading_path() -> None:
    doc = Document.build(
        id="policies/returns.md",
        source="policies/returns.md",
        title="Returns",
        kind="policy",
        sections=[Section(("Returns", "Refund timing"), "Refunds take 5 days.", "refund-timing")],
    )
    [passage] = chunk_document(doc, words, ChunkingPolicy(max_tokens=50, overlap_tokens=5))
    assert passage.text == "Refunds take 5 days."
    assert passage.embed_text == "Returns › Refund timing\nRefunds take 5 days."
    assert passage.section == "Returns › Refund timing"
    assert passage.anchor == "refund-timing"
    assert passage.citation_target == "policies/returns.md#refund-timing"


def test_long_text_is_packed_under_budget_with_overlap() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 18 for i in range(10)]  # 20 words each
    chunks = pack("\n\n".join(paragraphs), words, budget=50, overlap=20)
    assert len(chunks) > 3
    assert all(words(c) <= 50 for c in chunks)
    for previous, following in itertools.pairwise(chunks):
        # the last paragraph of one chunk opens the next one
        assert previous.split("\n")[-1] == following.split("\n")[0]
    joined = "\n".join(chunks)
    assert all(p.strip() in joined for p in paragraphs)


def test_one_huge_sentence_is_split_into_word_windows() -> None:
    chunks = pack("x " * 500, words, budget=64, overlap=0)
    assert all(words(c) <= 64 for c in chunks)
    assert sum(words(c) for c in chunks) == 500


def test_lines_are_split_before_sentences() -> None:
    record = "\n".join(f"Field {i}: value {i}." for i in range(30))
    chunks = pack(record, words, budget=20, overlap=0)
    assert all(words(c) <= 20 for c in chunks)
    assert all(line.startswith("Field") for c in chunks for line in c.split("\n"))


def test_a_table_split_between_chunks_goes_on_under_its_header_row() -> None:
    rows = "\n".join(f"| Item {i} | {i} years |" for i in range(12))
    text = f"Warranty periods run from delivery.\n| Item | Warranty |\n| --- | --- |\n{rows}"
    chunks = pack(text, words, budget=30, overlap=0)
    assert len(chunks) > 2
    assert all(words(c) <= 30 for c in chunks)
    for chunk in chunks[1:]:
        assert chunk.startswith("| Item | Warranty |\n| --- | --- |\n| Item "), chunk
    joined = "\n".join(chunks)
    assert all(f"| Item {i} | {i} years |" in joined for i in range(12))


def test_prose_after_a_table_does_not_carry_its_header() -> None:
    rows = "\n".join(f"| Item {i} | {i} years |" for i in range(4))
    after = "\n".join(f"Sentence {i} after the table has words." for i in range(6))
    chunks = pack(f"| Item | Warranty |\n| --- | --- |\n{rows}\n{after}", words, 20, 0)
    assert any(c.startswith("Sentence") for c in chunks)
    for chunk in chunks:  # the header goes with rows, and only with rows
        assert ("| Item | Warranty |" in chunk) == ("| Item " in chunk)


def test_a_table_without_a_header_row_is_packed_as_its_rows() -> None:
    """An HTML table with no <th> row has no header to carry: its rows are packed as lines."""
    rows = [f"| Item {i} | {i} years |" for i in range(12)]
    chunks = pack("\n".join(rows), words, budget=20, overlap=0)
    assert len(chunks) > 2
    assert "\n".join(chunks).split("\n") == rows


def test_header_does_not_repeat_the_title() -> None:
    assert (
        section_header("Size guide", Section(("Size guide", "Boots"), "x")) == "Size guide › Boots"
    )


def test_every_chunk_of_a_long_section_fits_with_its_header() -> None:
    body = "\n\n".join(f"Sentence number {i} is here. " * 3 for i in range(40))
    doc = Document.build(
        id="d", source="d.md", title="A title", kind="page", sections=[Section(("A title",), body)]
    )
    passages = chunk_document(doc, words, ChunkingPolicy(max_tokens=60, overlap_tokens=10))
    assert len(passages) > 5
    assert all(words(p.embed_text) <= 61 for p in passages)
    assert len({p.id for p in passages}) == len(passages)
    assert len({p.hash for p in passages}) == len(passages)


def test_a_nested_list_split_into_lines_keeps_its_nesting() -> None:
    """A list too long for one passage is cut into lines; each keeps its indent, so an item
    nested under "- Bronze members:" stays nested (the answer shows whose case it is)."""
    listing = "3. Levels:\n" + "\n".join(
        f"   - Level {i} members:\n     - return possible within the last {i} days"
        for i in range(20)
    )
    chunks = pack(listing, words, budget=40, overlap=0)
    assert len(chunks) > 1
    lines = [line for c in chunks for line in c.split("\n")]
    assert "     - return possible within the last 7 days" in lines
    assert "   - Level 7 members:" in lines
