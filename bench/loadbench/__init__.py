"""The end-to-end load benchmark: simulated shoppers against shopdesk and two baselines.

`python -m bench.e2e` is the command; this package holds its parts: the shoppers' conversations,
the HTTP load generator, the systems under test (shopdesk, the naive Hugging Face pipeline, the
llama.cpp peer), memory sampling, the report and the plots.
"""
