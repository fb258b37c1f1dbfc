"""Keep README.md's configuration table and .env.example in step with app/settings.py.

python -m devtools.settings_table           print the table
python -m devtools.settings_table --write   rewrite both files
python -m devtools.settings_table --check   exit 1 when either is out of date
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from app.settings import DEFAULT_CACHE_DIR, Settings

REPO = Path(__file__).resolve().parent.parent
START, END = "<!-- settings:start -->", "<!-- settings:end -->"
README, ENV_EXAMPLE = REPO / "README.md", REPO / ".env.example"


def _default(name: str) -> Any:
    field = Settings.model_fields[name]
    if field.default_factory is not None:
        return field.default_factory()  # type: ignore[call-arg]
    return field.default


def _shown(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Path):
        return str(value).replace(str(DEFAULT_CACHE_DIR), "~/.cache/shopdesk")
    if isinstance(value, list | dict):
        return json.dumps(value)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def table() -> str:
    rows = ["| variable | default | what it sets |", "| --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        default = _shown(_default(name)) or "(unset)"
        description = (field.description or "").replace("|", "\\|")
        rows.append(f"| `SHOPDESK_{name.upper()}` | `{default}` | {description} |")
    return "\n".join(rows)


def env_example() -> str:
    lines = ["# Copy to .env and adjust; every variable is optional (see the table in README.md)."]
    for name in Settings.model_fields:
        lines.append(f"# SHOPDESK_{name.upper()}={_shown(_default(name))}")
    return "\n".join(lines) + "\n"


def readme_with_table(readme: str) -> str:
    before, rest = readme.split(START, 1)
    _, after = rest.split(END, 1)
    return f"{before}{START}\n{table()}\n{END}{after}"


def main() -> int:
    readme = README.read_text()
    if "--write" in sys.argv:
        README.write_text(readme_with_table(readme))
        ENV_EXAMPLE.write_text(env_example())
        return 0
    if "--check" in sys.argv:
        stale = [
            path.name
            for path, wanted in ((README, readme_with_table(readme)), (ENV_EXAMPLE, env_example()))
            if path.read_text() != wanted
        ]
        if stale:
            print(f"{', '.join(stale)} out of date: run python -m devtools.settings_table --write")
            return 1
        return 0
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
