"""`python -m bench.gpu`: the GPU benchmark (see `gpu_bench.py`)."""

from __future__ import annotations

import sys

from bench.gpu.gpu_bench import main

sys.exit(main())
