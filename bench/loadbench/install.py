"""Bring in the `bench` extra when it is missing, so one command works on a fresh checkout.

Idempotent: nothing runs when every module imports. llama-cpp-python has no wheel for most Linux
machines and compiles llama.cpp (a few minutes on 2 cores, once: pip keeps the built wheel in its
cache); its multimodal library is left out of that build, the benchmark needs text only.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORE_MODULES = ("matplotlib", "psutil")  # what the benchmark itself imports
# The llama.cpp peer: the bindings and the server's own dependencies.
PEER_MODULES = ("llama_cpp", "sse_starlette", "starlette_context")
MODULES = CORE_MODULES + PEER_MODULES


def missing_modules() -> list[str]:
    return [name for name in MODULES if importlib.util.find_spec(name) is None]


def bench_requirements(pyproject: Path = REPO / "pyproject.toml") -> list[str]:
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    return list(extras["bench"])


def ensure_bench_packages() -> str | None:
    """Install the `bench` extra into this interpreter if needed; the failure's reason, or None."""
    missing = missing_modules()
    if not missing:
        return None
    requirements = bench_requirements()
    print(
        f"installing the bench extra ({', '.join(missing)} missing); compiling llama.cpp "
        "takes a few minutes the first time ...",
        flush=True,
    )
    env = {**os.environ, "CMAKE_ARGS": os.environ.get("CMAKE_ARGS", "-DLLAVA_BUILD=OFF")}
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", *requirements],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return f"pip install {' '.join(requirements)} failed:\n{done.stderr[-2000:]}"
    still = missing_modules()
    return f"still missing after installing: {', '.join(still)}" if still else None
