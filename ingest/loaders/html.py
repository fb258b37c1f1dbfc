"""Saved HTML pages: visible text split on headings; navigation, scripts and footers dropped."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ingest.documents import Document, LoadResult, Section, slugify
from ingest.loaders.kinds import kind_from_path

_SKIPPED_TAGS = {
    "script",
    "style",
    "nav",
    "footer",
    "header",
    "noscript",
    "svg",
    "template",
    "form",
}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_BLOCKS = {"p", "div", "li", "ul", "ol", "table", "section", "article", "br", "dd", "dt"}
_CELLS = {"td", "th"}
_ROW_START = "\x00"  # marks a table row's line until ``_clean`` writes it as "| a | b |"
_SPACES = re.compile(r"[ \t\r\f\v]+")
_MAIN = re.compile(r"<main[\s>]", re.IGNORECASE)


class _PageParser(HTMLParser):
    """Collects title and heading-split text; with ``only_main``, only what is inside <main>."""

    def __init__(self, *, only_main: bool) -> None:
        super().__init__(convert_charrefs=True)
        self._only_main = only_main
        self._main_depth = 0
        self.title = ""
        self.sections: list[tuple[list[tuple[int, str, str]], list[str]]] = [([], [])]
        self._stack: list[tuple[int, str, str]] = []
        self._skip_depth = 0
        self._in_title = False
        self._heading: tuple[int, str] | None = None  # (level, anchor) while inside <hN>
        self._heading_text: list[str] = []
        self._row: list[str] | None = None  # the cells' tags of the table row being read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "main":
            self._main_depth += 1
        if tag in _SKIPPED_TAGS:
            self._skip_depth += 1
        elif self._skip_depth:
            return
        elif tag == "title":
            self._in_title = True
        elif tag in _HEADINGS:
            self._heading = (int(tag[1]), dict(attrs).get("id") or "")
            self._heading_text = []
        elif tag in _BLOCKS:
            self._text("\n")
        elif tag == "tr":
            self._row = []
            self._text(f"\n{_ROW_START}")
        elif tag in _CELLS:
            if self._row is not None:
                self._row.append(tag)
            self._text(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "main":
            self._main_depth = max(0, self._main_depth - 1)
        if tag in _SKIPPED_TAGS:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif self._skip_depth:
            return
        elif tag == "title":
            self._in_title = False
        elif tag in _HEADINGS and self._heading is not None:
            level, anchor = self._heading
            text = _SPACES.sub(" ", "".join(self._heading_text)).strip()
            self._heading = None
            if text:
                while self._stack and self._stack[-1][0] >= level:
                    self._stack.pop()
                self._stack.append((level, text, anchor or slugify(text)))
                self.sections.append((list(self._stack), []))
        elif tag in _BLOCKS:
            self._text("\n")
        elif tag == "tr" and self._row is not None:
            # a row of header cells says what the rows under it are, as a Markdown table's does
            if self._row and all(cell == "th" for cell in self._row):
                self._text(f"\n{_ROW_START}" + " | ---" * len(self._row))
            self._text("\n")
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif self._skip_depth or (self._only_main and not self._main_depth):
            return
        elif self._heading is not None:
            self._heading_text.append(data)
        else:
            self._text(data)

    def _text(self, data: str) -> None:
        self.sections[-1][1].append(data)


def load_html(text: str, rel: str) -> LoadResult:
    """One document per page, titled by <title> (or the first <h1>)."""
    parser = _PageParser(only_main=_MAIN.search(text) is not None)
    parser.feed(text)
    parser.close()
    title = _SPACES.sub(" ", parser.title).strip()
    sections: list[Section] = []
    for stack, chunks in parser.sections:
        body = _clean("".join(chunks))
        if not body:
            continue
        if not title and stack:
            title = stack[0][1]
        heading = tuple(h for _, h, _ in stack)
        anchor = stack[-1][2] if stack else ""
        sections.append(Section(heading=heading, text=body, anchor=anchor))
    if not sections:
        return LoadResult()
    title = title or rel
    sections = [s if s.heading else Section((title,), s.text, s.anchor) for s in sections]
    document = Document.build(
        id=rel, source=rel, title=title, kind=kind_from_path(rel), sections=sections
    )
    return LoadResult(documents=[document])


def _clean(text: str) -> str:
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(_row(line) if line.startswith(_ROW_START) else line.strip(" |")
                     for line in lines if line.strip(f" |{_ROW_START}"))  # fmt: skip


def _row(line: str) -> str:
    """A table row as Markdown writes it: "| Sleeping bags | 3 years |"."""
    cells = [cell.strip() for cell in line.removeprefix(_ROW_START).strip().strip("|").split("|")]
    return f"| {' | '.join(cells)} |"
