"""vLLM's router in front of two `vllm serve` engines, against one engine alone."""
