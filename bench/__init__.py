"""Benchmarks of shopdesk, run as modules from the repository root; not part of the wheel.

    .venv/bin/python -m bench.ingest        embedding ways and the incremental ingest job
    .venv/bin/python -m bench.generation    continuous batching and prefix caching
    .venv/bin/python -m bench.checks        what the answer checks cost per turn
    .venv/bin/python -m bench.e2e           simulated shoppers against shopdesk and two baselines
    .venv/bin/python -m bench.gaps          the knowledge-gaps page for 100k unanswered questions
    .venv/bin/python -m bench.gpu.pack      pack the GPU benchmark's kit (then `-m bench.gpu`)

Each prints a table and writes JSON under bench-results/ (the GPU one where --out says).
"""
