"""`python -m app`: set up models, serve the product."""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import sys

from pydantic import ValidationError

from app.errors import ShopdeskError
from app.passwords import hash_password
from app.settings import Settings

logger = logging.getLogger("app")


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    parser = argparse.ArgumentParser(prog="python -m app", description="shopdesk")
    commands = parser.add_subparsers(dest="command", required=True)
    models = commands.add_parser("models", help="locate the embedder, convert the generator once")
    models.add_argument("--verify", action="store_true", help="also check every file's checksum")
    chat = commands.add_parser("chat", help="chat with the assistant in this terminal")
    chat.add_argument("--product", help="ask as if from this product's page: its SKU or page URL")
    commands.add_parser("migrate", help="bring the transcript database to the latest schema")
    commands.add_parser(
        "hash-password", help="print the SHOPDESK_STAFF_PASSWORD_HASH of a password"
    )
    serve = commands.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)
    if args.command == "hash-password":  # before Settings(): production refuses the default
        return _hash_password()
    try:
        settings = Settings()
        if args.command == "models":
            return _models(settings, verify=args.verify)
        if args.command == "migrate":
            from app.transcripts.db import upgrade

            upgrade(settings.transcripts_url)
            print(f"transcripts schema up to date in {settings.transcripts_url.split('@')[-1]}")
            return 0
        if args.command == "chat":
            import asyncio

            from app.terminal import run_terminal_chat

            return asyncio.run(run_terminal_chat(settings, product=args.product))
        return _serve(settings, host=args.host, port=args.port)
    except (ShopdeskError, ValidationError) as exc:
        print(f"shopdesk: {exc}", file=sys.stderr)
        return 2


def _models(settings: Settings, *, verify: bool) -> int:
    from app.modelstore import ensure_generator, resolve_embedder, verify_folder

    embedder = resolve_embedder(settings.embedder_model)
    print(f"embedder   {settings.embedder_model}: {embedder}")
    folder = ensure_generator(settings.generator_model, settings.model_cache_dir)
    if folder is not None:
        manifest = verify_folder(folder, checksums=verify)
        print(f"generator  {settings.generator_model}: {folder} ({len(manifest['files'])} files)")
    else:
        print(f"generator  {settings.generator_model}: used as configured")
    return 0


def _hash_password() -> int:
    """Read a password (prompted twice on a terminal, else stdin's first line), print its hash."""
    if sys.stdin.isatty():
        password = getpass.getpass("Staff password: ")
        if getpass.getpass("Again: ") != password:
            print("shopdesk: the two passwords differ", file=sys.stderr)
            return 2
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    if len(password) < 8:
        print("shopdesk: use a password of at least 8 characters", file=sys.stderr)
        return 2
    print(hash_password(password))
    return 0


def _serve(settings: Settings, *, host: str, port: int) -> int:
    import uvicorn

    from app.server import create_app

    # proxy_headers off: uvicorn would otherwise trust X-Forwarded-For from any local peer; the
    # client address is read by app.traffic.guards as SHOPDESK_FORWARDED_PROXY_HOPS says.
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info", proxy_headers=False)
    return 0
