"""Entry point of `python -m app` (guarded: vLLM spawns worker processes that re-import it)."""

from __future__ import annotations

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
