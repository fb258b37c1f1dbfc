"""The GPU benchmark: `pack` makes its kit here, `gpu_bench` measures on a bare CUDA machine.

`gpu_bench.py` imports nothing from shopdesk, so the folder can also be copied and run alone.
"""
