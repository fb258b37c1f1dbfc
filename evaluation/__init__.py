"""Retrieval and answer quality evaluation: a tool above the product (`app`) and its ingestion
(`ingest`), run from a checkout as `python -m evaluation`; never shipped in the wheel."""
