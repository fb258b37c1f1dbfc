"""deploy/compose.yaml, the many-machine layout, checked without a Docker engine: its structure,
that every command names a module or program the image has, and that the app's environment is a
valid set of shopdesk settings."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.passwords import hash_password
from app.settings import Settings

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "deploy" / "compose.yaml"
PLACEHOLDER = re.compile(r"\$\{(\w+)(?::?[-?][^}]*)?\}")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def services(compose: dict[str, Any], *, built: bool | None = None) -> dict[str, Any]:
    found = compose["services"]
    if built is None:
        return dict(found)
    return {name: s for name, s in found.items() if ("build" in s) == built}


def argv(service: dict[str, Any]) -> list[str]:
    command = service.get("command")
    assert isinstance(command, list) and command, "commands are lists, never shell strings"
    return [str(part) for part in command]


def dockerfile_extras() -> set[str]:
    line = re.search(r'pip install "\.\[([\w,]+)\]"', (REPO / "Dockerfile").read_text())
    assert line, "the Dockerfile installs the project with its extras"
    return set(line.group(1).split(","))


def module_exists(name: str) -> bool:
    """``python -m name`` would find it: a module file, or a package with ``__main__``; found
    on disk without importing it (vLLM takes seconds to import)."""
    top, *rest = name.split(".")
    spec = importlib.util.find_spec(top)
    if spec is None:
        return False
    if spec.submodule_search_locations is None:
        return not rest
    folder = Path(next(iter(spec.submodule_search_locations)))
    path = folder.joinpath(*rest)
    return path.with_suffix(".py").is_file() or (path / "__main__.py").is_file()


def test_every_service_has_an_image_or_a_build_of_the_repo(compose: dict[str, Any]) -> None:
    for name, service in services(compose).items():
        assert "image" in service or "build" in service, name
        if "build" in service:
            context = (COMPOSE.parent / service["build"]["context"]).resolve()
            assert (context / service["build"]["dockerfile"]).is_file(), name
            assert context == REPO, name


def test_dependencies_and_volumes_exist(compose: dict[str, Any]) -> None:
    names = set(compose["services"])
    for name, service in services(compose).items():
        assert set(service.get("depends_on", [])) <= names - {name}, name
        for mount in service.get("volumes", []):
            source = mount.split(":", 1)[0]
            assert source in compose["volumes"], f"{name}: volume {source} is not declared"


def test_the_layout_has_every_part(compose: dict[str, Any]) -> None:
    built = services(compose, built=True)
    kinds = {name: " ".join(argv(s)[:3]) for name, s in built.items()}
    engines = [n for n, k in kinds.items() if "vllm.entrypoints.openai.api_server" in k]
    assert len(engines) >= 2
    assert any(k.startswith("vllm-router") for k in kinds.values())
    assert "python -m ingest" in kinds.values()
    apps = [s for s in built.values() if argv(s)[:4] == ["python", "-m", "app", "serve"]]
    assert len(apps) == 1 and apps[0]["deploy"]["replicas"] >= 2
    images = {s["image"].split(":")[0] for s in services(compose, built=False).values()}
    assert {"redis", "postgres"} <= images


def test_every_command_names_a_module_or_program_the_image_has(compose: dict[str, Any]) -> None:
    scripts = {ep.name: ep for ep in importlib.metadata.entry_points(group="console_scripts")}
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    installed = set(project["dependencies"]) | {
        requirement
        for extra in dockerfile_extras()
        for requirement in project["optional-dependencies"][extra]
    }
    installed_names = {re.split(r"[\[<>=! ]", r, maxsplit=1)[0].lower() for r in installed}
    for name, service in services(compose, built=True).items():
        command = argv(service)
        if command[:2] == ["python", "-m"]:
            assert module_exists(command[2]), f"{name}: no module {command[2]}"
            continue
        program = scripts.get(command[0])
        assert program is not None and program.dist is not None, f"{name}: no program {command[0]}"
        assert program.dist.name.lower() in installed_names, (
            f"{name}: {command[0]} comes from {program.dist.name}, which the Dockerfile's extras "
            "do not install"
        )


def test_the_router_and_the_app_point_at_services_that_listen_there(
    compose: dict[str, Any],
) -> None:
    built = services(compose, built=True)

    def port_of(service: dict[str, Any]) -> str:
        command = argv(service)
        return command[command.index("--port") + 1]

    router_name, router = next((n, s) for n, s in built.items() if argv(s)[0] == "vllm-router")
    command = argv(router)
    workers = command[command.index("--worker-urls") + 1 :]
    workers = workers[: next((i for i, w in enumerate(workers) if w.startswith("--")), None)]
    assert len(workers) >= 2
    for url in workers:
        host, port = re.fullmatch(r"http://([\w-]+):(\d+)", url).groups()  # type: ignore[union-attr]
        assert host in built and port_of(built[host]) == port, url
        assert host in router.get("depends_on", []), url
    app = built["app"]
    assert app["environment"]["SHOPDESK_REMOTE_ROUTER_URL"] == (
        f"http://{router_name}:{port_of(router)}"
    )


def test_every_shopdesk_variable_is_a_setting_and_the_app_would_start_with_them(
    compose: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    samples = {
        "SHOPDESK_SECRET_KEY": "s" * 48,
        "SHOPDESK_STAFF_PASSWORD_HASH": hash_password("a staff password", n=2**4),
        "SHOPDESK_PROMPT_CANARY": "c" * 24,
    }
    for name, service in services(compose).items():
        environment = service.get("environment", {})
        for variable in environment:
            if variable.startswith("SHOPDESK_"):
                field = variable.removeprefix("SHOPDESK_").lower()
                assert field in Settings.model_fields, f"{name}: {variable} is no setting"
        if not any(v.startswith("SHOPDESK_") for v in environment):
            continue
        for variable in list(Settings.model_fields):
            monkeypatch.delenv(f"SHOPDESK_{variable.upper()}", raising=False)
        for variable, value in environment.items():
            given = PLACEHOLDER.sub(lambda m: samples.get(m.group(1), "placeholder"), str(value))
            monkeypatch.setenv(variable, given)
        Settings(_env_file=None)  # raises on anything inconsistent or insecure
