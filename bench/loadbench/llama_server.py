"""llama.cpp's Python server (`python -m llama_cpp.server`) with its extra weight buffers off.

The peer engine of the benchmark. llama.cpp moves Q4_1 weights into AMX tile buffers when the
CPU has AMX; on the development machines (a VM on a Xeon with AMX) its AMX matrix product
crashes with a segmentation fault in `ggml_backend_amx_mul_mat` on the first request. Q4_1 has
no other repacked layout, so turning the extra buffers off (`use_extra_bufts`, which
llama-cpp-python does not expose) loses nothing elsewhere and gives the plain AVX-512 kernels.
Arguments are `llama_cpp.server`'s own.

    .venv/bin/python -m bench.loadbench.llama_server --model FILE.gguf --port PORT ...
"""

from __future__ import annotations

from typing import Any

import llama_cpp.llama_cpp as bindings

_default_params = bindings.llama_model_default_params


def _params_without_extra_buffers() -> Any:
    params = _default_params()
    params.use_extra_bufts = False
    return params


if __name__ == "__main__":
    bindings.llama_model_default_params = _params_without_extra_buffers
    from llama_cpp.server.__main__ import main

    main()
