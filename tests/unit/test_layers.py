"""The import contracts of pyproject.toml (``[tool.importlinter]``) hold, and each kind of
wrong-way import they exist for breaks them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

# import-linter's console script, installed beside this interpreter by the `dev` extra
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGES = ("app", "ingest", "evaluation", "bench", "devtools", "training")


def lint_imports(root: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the packages under ``root`` with ``root``'s pyproject.toml (only the
    contracts with these ids, if any are given)."""
    only = [arg for contract in contracts for arg in ("--contract", contract)]
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", *only],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_repository_keeps_its_import_contracts() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the packages' sources and pyproject.toml, to break on purpose."""
    for package in PACKAGES:
        shutil.copytree(
            REPO / package,
            tmp_path / package,
            ignore=lambda folder, names: [
                n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()
            ],
        )
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


WRONG_WAY = [
    # (the module given the import, the import, the id of the contract that must break)
    ("app/sessions/memory.py", "import app.web.staff", "app-layers"),
    ("app/transcripts/store.py", "import app.chat.service", "app-layers"),
    ("app/settings.py", "import app.observability.metrics", "app-layers"),
    ("app/api/chat_routes.py", "import app.web.shopper", "api-web"),
    ("app/chat/defences/findings.py", "import app.chat.turn", "defences"),
    ("app/chat/citations.py", "import app.chat.service", "use-cases"),
    ("app/errors.py", "import evaluation.metrics", "product-not-tools"),
    ("ingest/pipeline.py", "import app.container", "ingest-uses-backends"),
    ("ingest/documents.py", "import ingest.pipeline", "ingest-layers"),
]


@pytest.mark.parametrize(("module", "statement", "contract"), WRONG_WAY)
def test_a_wrong_way_import_breaks_its_contract(
    checkout: Path, module: str, statement: str, contract: str
) -> None:
    assert lint_imports(checkout, contract).returncode == 0, "kept before the change"
    path = checkout / module
    path.write_text(path.read_text() + f"\n{statement}  # the wrong way, on purpose\n")
    result = lint_imports(checkout, contract)
    output = result.stdout + result.stderr
    print(output)
    assert result.returncode == 1, output
    assert "1 broken" in output, output
    importer = module.removesuffix(".py").replace("/", ".")
    assert f"{importer} -> {statement.removeprefix('import ')}" in output, output
