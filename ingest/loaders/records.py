"""Record files (JSON, JSONL, CSV): every record, a product or an FAQ entry, is a document."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ingest.documents import Document, DocumentKind, LoadResult, Section, SkippedFile, slugify
from ingest.loaders.kinds import kind_from_path

_TITLE_KEYS = ("name", "title", "question", "heading", "subject")
_ID_KEYS = ("sku", "id", "slug", "code")
_URL_KEYS = ("url", "link", "href")


def load_json(text: str, rel: str) -> LoadResult:
    """A JSON array of records, an object holding one such array, or a single record."""
    data = json.loads(text)
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list) and v and _all_dicts(v)]
        records: list[Any] = lists[0] if len(lists) == 1 else [data]
    elif isinstance(data, list):
        records = data
    else:
        raise ValueError(f"expected an object or an array of objects, found {type(data).__name__}")
    return _records_to_result(enumerate(records, start=1), rel, unit="item")


def load_jsonl(text: str, rel: str) -> LoadResult:
    """One JSON object per line; a line that does not parse is skipped and reported on its own."""
    result = LoadResult()
    parsed: list[tuple[int, Any]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            parsed.append((lineno, json.loads(line)))
        except json.JSONDecodeError as exc:
            result.skipped.append(SkippedFile(f"{rel}:{lineno}", f"invalid JSON: {exc.msg}"))
    if not parsed and result.skipped:
        raise ValueError("no line of the file is valid JSON")
    records = _records_to_result(parsed, rel, unit="line")
    records.skipped[:0] = result.skipped
    return records


def load_csv(text: str, rel: str) -> LoadResult:
    """A CSV with a header row; rows with the wrong number of cells are skipped and reported."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration as exc:
        raise ValueError("no header row") from exc
    if len(header) < 2 or any(not h for h in header):
        raise ValueError(f"header row is not a list of column names: {header!r}")
    result = LoadResult()
    rows: list[tuple[int, Any]] = []
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                result.skipped.append(
                    SkippedFile(
                        f"{rel}:{reader.line_num}",
                        f"expected {len(header)} cells, found {len(row)}",
                    )
                )
                continue
            rows.append((reader.line_num, dict(zip(header, row, strict=True))))
    except csv.Error as exc:
        raise ValueError(f"line {reader.line_num}: {exc}") from exc
    records = _records_to_result(rows, rel, unit="row")
    records.skipped[:0] = result.skipped
    return records


def record_to_document(record: Mapping[str, Any], rel: str, position: int) -> Document:
    """Render a record as labelled lines, keeping its identifier (SKU) searchable in the text."""
    title_key = next((k for k in _TITLE_KEYS if _present(record.get(k))), None)
    id_key = next((k for k in _ID_KEYS if _present(record.get(k))), None)
    url_key = next((k for k in _URL_KEYS if _present(record.get(k))), None)
    identifier = str(record[id_key]).strip() if id_key else str(position)
    title = str(record[title_key]).strip() if title_key else f"{rel} #{position}"
    kind = _record_kind(record, rel)
    lines: list[str] = []
    hidden = {title_key, url_key} | ({id_key} if id_key != "sku" else set())
    if kind == "faq" and title_key == "question":
        lines.append(f"Question: {title}")
        lines.extend(_render_field("answer", record["answer"]))
        hidden.add("answer")
    for key, value in record.items():
        if key not in hidden and _present(value):
            lines.extend(_render_field(key, value))
    anchor = slugify(identifier)
    section = Section(heading=(title,), text="\n".join(lines), anchor=anchor)
    return Document.build(
        id=f"{rel}#{identifier}",
        source=rel,
        title=title,
        kind=kind,
        sections=[section],
        url=str(record[url_key]).strip() if url_key else "",
    )


def _records_to_result(records: Iterable[tuple[int, Any]], rel: str, *, unit: str) -> LoadResult:
    result = LoadResult()
    seen: set[str] = set()
    for position, record in records:
        where = f"{rel}:{position}" if unit != "item" else f"{rel}[{position}]"
        if not isinstance(record, dict):
            result.skipped.append(SkippedFile(where, f"{unit} is not an object"))
            continue
        document = record_to_document(record, rel, position)
        if not document.sections[0].text and document.title.startswith(rel):
            result.skipped.append(SkippedFile(where, f"{unit} has no text"))
        elif document.id in seen:
            result.skipped.append(SkippedFile(where, f"duplicate id {document.id!r}"))
        else:
            seen.add(document.id)
            result.documents.append(document)
    return result


def _record_kind(record: Mapping[str, Any], rel: str) -> DocumentKind:
    if _present(record.get("question")) and _present(record.get("answer")):
        return "faq"
    if _present(record.get("sku")) or any(k.startswith("price") for k in record):
        return "product"
    return kind_from_path(rel)


def _render_field(key: str, value: Any) -> list[str]:
    label = key.removesuffix("_gbp").replace("_", " ").strip().capitalize()
    if key.endswith("_gbp"):
        label += " (GBP)"
    if key.lower() == "sku":
        label = "SKU"
    if isinstance(value, Mapping):
        parts = [f"{k.replace('_', ' ')}: {_scalar(v)}" for k, v in value.items() if _present(v)]
        return [f"{label}: " + "; ".join(parts)]
    if isinstance(value, list):
        return [f"{label}: " + ", ".join(_scalar(v) for v in value if _present(v))]
    return [f"{label}: {_scalar(value)}"]


def _scalar(value: Any) -> str:
    if isinstance(value, Mapping | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value).strip()


def _present(value: Any) -> bool:
    return value is not None and (not isinstance(value, str | list | dict) or bool(value))


def _all_dicts(items: list[Any]) -> bool:
    return all(isinstance(i, dict) for i in items)
