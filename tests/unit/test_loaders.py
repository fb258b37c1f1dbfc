from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.loaders import discover, load_file

MARKDOWN = """# Returns and refunds

Intro text before any section.

## Return window

You have 30 days.

### Exceptions

Used tents cannot be returned.

```
# not a heading inside a code fence
```

## Refund timing

Cards: 5 working days.
"""

HTML = """<html><head><title>Warranty | Fernhill</title><script>var x = "ignore me";</script></head>
<body><nav><a href="/">Home</a> <a href="/shop">Shop all</a></nav>
<h1>Warranty</h1><p>Our promise.</p>
<h2 id="jackets">Jackets</h2><p>Two years on &amp; off the hill.</p>
<table><tr><th>Item</th><th>Years</th></tr><tr><td>Tents</td><td>3</td></tr></table>
<footer>Copyright Fernhill</footer></body></html>"""


def load(tmp_path: Path, name: str, content: str | bytes, max_bytes: int = 1_000_000):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return load_file(path, root=tmp_path, max_bytes=max_bytes)


def test_markdown_sections_keep_heading_path_and_anchor(tmp_path: Path) -> None:
    result = load(tmp_path, "policies/returns.md", MARKDOWN)
    [doc] = result.documents
    assert doc.title == "Returns and refunds"
    assert doc.kind == "policy"
    headings = [s.heading for s in doc.sections]
    assert headings == [
        ("Returns and refunds",),
        ("Returns and refunds", "Return window"),
        ("Returns and refunds", "Return window", "Exceptions"),
        ("Returns and refunds", "Refund timing"),
    ]
    assert doc.sections[2].anchor == "exceptions"
    assert "# not a heading" in doc.sections[2].text


def test_html_keeps_content_and_drops_navigation_scripts_and_footer(tmp_path: Path) -> None:
    [doc] = load(tmp_path, "policies/warranty.html", HTML).documents
    text = "\n".join(s.text for s in doc.sections)
    assert doc.title == "Warranty | Fernhill"
    assert "Two years on & off the hill." in text
    # a table reads as Markdown writes it: the header row above its rule, then the rows
    assert "| Item | Years |\n| --- | --- |\n| Tents | 3 |" in text
    for boilerplate in ("Shop all", "ignore me", "Copyright"):
        assert boilerplate not in text
    jackets = next(s for s in doc.sections if s.heading[-1] == "Jackets")
    assert jackets.anchor == "jackets"


def test_jsonl_records_become_documents_with_sku_in_text(tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {
                "sku": "FH-1",
                "name": "Ridgeline 35",
                "price_gbp": 80,
                "url": "https://x/r35",
                "specs": {"capacity": "35 L"},
                "sizes": ["S", "M"],
            }
        ),
        "{not json",
        json.dumps({"sku": "FH-2", "name": "Ridgeline 45", "price_gbp": 95}),
    ]
    result = load(tmp_path, "products/catalog.jsonl", "\n".join(lines))
    assert [d.id for d in result.documents] == [
        "products/catalog.jsonl#FH-1",
        "products/catalog.jsonl#FH-2",
    ]
    first = result.documents[0]
    assert (
        first.kind == "product" and first.url == "https://x/r35" and first.title == "Ridgeline 35"
    )
    assert "SKU: FH-1" in first.sections[0].text
    assert "capacity: 35 L" in first.sections[0].text
    assert [(s.path, s.reason.split(":")[0]) for s in result.skipped] == [
        ("products/catalog.jsonl:2", "invalid JSON")
    ]


def test_csv_rows_and_a_ragged_row(tmp_path: Path) -> None:
    content = 'sku,name,price_gbp,description\nFH-B1,Trail boot,120,"Grippy, light"\nFH-B2,Broken\n'
    result = load(tmp_path, "products/boots.csv", content)
    [doc] = result.documents
    assert "Description: Grippy, light" in doc.sections[0].text
    assert result.skipped[0].path == "products/boots.csv:3"


def test_json_faq_array(tmp_path: Path) -> None:
    faq = [{"id": "faq-1", "question": "Do you ship to Jersey?", "answer": "Yes, 5 days."}]
    [doc] = load(tmp_path, "faq/faq.json", json.dumps(faq)).documents
    assert doc.kind == "faq" and doc.title == "Do you ship to Jersey?"
    assert doc.sections[0].text.startswith("Question: Do you ship to Jersey?\nAnswer: Yes")


def test_content_hash_changes_with_content_only(tmp_path: Path) -> None:
    a = load(tmp_path, "a/x.md", "# T\n\nSame text").documents[0]
    b = load(tmp_path, "b/x.md", "# T\n\nSame text").documents[0]
    c = load(tmp_path, "c/x.md", "# T\n\nOther text").documents[0]
    assert a.content_hash == b.content_hash != c.content_hash


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.md", b"", "empty file"),
        ("blank.md", b"  \n\t\n", "empty file (whitespace only)"),
        ("image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00", "binary content"),
        ("latin1.md", "Caf\u00e9 prices".encode("latin-1"), "not UTF-8 text"),
        ("broken.json", b'{"sku": "FH-1", ', "corrupt json"),
        ("scalar.json", b"42", "corrupt json"),
        ("photo.jpg", b"\xff\xd8\xff", "unsupported file type"),
        ("big.md", b"x" * 2048, "oversized"),
        ("allbad.jsonl", b"{nope\n[also nope\n", "corrupt jsonl"),
        ("header.csv", b"onlyonecolumn\nvalue\n", "corrupt csv"),
    ],
)
def test_bad_files_are_skipped_with_a_reason(
    tmp_path: Path, name: str, content: bytes, reason: str
) -> None:
    result = load(tmp_path, name, content, max_bytes=1024)
    assert result.documents == []
    [skipped] = result.skipped
    assert skipped.path == name
    assert skipped.reason.startswith(reason), skipped.reason


def test_unreadable_file_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "locked.md"
    path.write_text("# Locked")

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    [skipped] = load_file(path, root=tmp_path, max_bytes=1000).skipped
    assert skipped.reason == "unreadable: Permission denied"


def test_discover_ignores_hidden_files_and_folders(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.md").write_text("x")
    (tmp_path / ".draft.md").write_text("x")
    (tmp_path / "faq").mkdir()
    (tmp_path / "faq" / "a.md").write_text("x")
    assert [p.relative_to(tmp_path).as_posix() for p in discover(tmp_path)] == ["faq/a.md"]


def test_saved_page_with_main_keeps_only_main_content(tmp_path: Path) -> None:
    page = (
        "<html><head><title>Privacy</title></head><body>"
        '<a class="skip-link" href="#main">Skip to main content</a>'
        "<div class='promo'>Free delivery over £50</div>"
        "<main><h1>Privacy</h1><p>We keep orders for 6 years.</p></main>"
        "<aside>Related links</aside></body></html>"
    )
    [doc] = load(tmp_path, "policies/privacy.html", page).documents
    text = "\n".join(s.text for s in doc.sections)
    assert text == "We keep orders for 6 years."


@pytest.mark.parametrize(
    ("rel", "kind"),
    [
        ("faq/product-care.md", "faq"),
        ("products/care/faq.md", "product"),
        ("policies/returns.md", "policy"),
        ("about.md", "page"),
    ],
)
def test_kind_comes_from_the_outermost_folder(rel: str, kind: str) -> None:
    from ingest.loaders.kinds import kind_from_path

    assert kind_from_path(rel) == kind
