"""Print the configuration table of README.md from the Settings model (or --check it)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from app.settings import DEFAULT_CACHE_DIR, Settings  # noqa: E402

START, END = "<!-- settings:start -->", "<!-- settings:end -->"


def table() -> str:
    rows = ["| variable | default | what it sets |", "| --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        default = field.default
        if default is None:
            text = "(unset)"
        elif isinstance(default, Path):
            text = str(default).replace(str(DEFAULT_CACHE_DIR), "~/.cache/shopdesk")
        else:
            text = str(default)
        description = (field.description or "").replace("|", "\\|")
        rows.append(f"| `SHOPDESK_{name.upper()}` | `{text}` | {description} |")
    return "\n".join(rows)


def readme_table(readme: str) -> str:
    return readme.split(START, 1)[1].split(END, 1)[0].strip()


def main() -> int:
    if "--check" in sys.argv:
        current = readme_table((REPO / "README.md").read_text())
        if current != table():
            print("README.md's settings table is out of date: run scripts/settings_table.py")
            return 1
        return 0
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
