"""Fault injection against real services, without disturbing the shared ones other tests use.

- ``TcpProxy``: a TCP proxy on a thread of its own between the app and a real server (here the
  shared PostgreSQL); ``cut()`` drops every connection and refuses new ones, ``restore()``
  listens again on the same port.
- ``RedisServer``: a private ``redis-server`` on a free port, keeping nothing on disk (like the
  production one), that a test kills and starts again.
- ``PostgresServer``: a private PostgreSQL server (its own data folder, a free port) that a test
  shuts down and starts again on the same data.
- ``fresh_postgres_database()``: a migrated (or empty) database of its own on the shared server.
- ``engine_core_pids()``: the in-process vLLM engines' EngineCore processes, to stop or kill.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

import psutil
from sqlalchemy import create_engine, make_url, text

from app.transcripts.db import upgrade

POSTGRES_ADMIN_URL = os.environ.get(
    "SHOPDESK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(condition: Callable[[], bool], *, timeout: float, what: str) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g}s")
        time.sleep(0.2)


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()

    def __enter__(self) -> TcpProxy:
        self._thread.start()
        self.restore()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cut()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def cut(self) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(timeout=10)

    def restore(self) -> None:
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(timeout=10)

    async def _listen(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(
                self._link, "127.0.0.1", self.port, reuse_address=True
            )

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._links):
            writer.transport.abort()  # a reset, as when a server or its network goes away
        self._links.clear()

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._links |= {writer, up_writer}

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._links -= {writer, up_writer}


class RedisServer:
    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed"
        self._process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_until(self._answers, timeout=30, what="the private redis-server starting")

    def kill(self) -> None:
        """Stop it the hard way: whatever it held is gone, as after a crash."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=30)
            self._process = None

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL server's ``bin`` folder (Debian's layout), if any."""
    found = [
        folder
        for folder in Path("/usr/lib/postgresql").glob("*/bin")
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists()
    ]

    def version(folder: Path) -> list[int]:
        return [int(part) for part in folder.parent.name.split(".") if part.isdigit()]

    return max(found, key=version, default=None)


def postgres_server_missing() -> str | None:
    """Why a ``PostgresServer`` cannot run here, or None when it can."""
    if postgres_bin() is None:
        return "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin"
    if os.geteuid() == 0:  # initdb refuses root: the server runs as the postgres user
        if shutil.which("runuser") is None:
            return "runuser is missing (needed to run PostgreSQL as the postgres user)"
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "there is no postgres OS user to run a private PostgreSQL server as"
    return None


class PostgresServer:
    """A private PostgreSQL server: a data folder of its own in a temporary folder, listening on
    127.0.0.1 on a free port (and a Unix socket in that folder), trust authentication, one
    database. ``stop()`` shuts it down for real (``pg_ctl stop -m fast``: every connection is
    ended, the port is closed); ``start()`` starts it again on the same data and port."""

    def __init__(self, database: str = "shopdesk") -> None:
        bin_folder = postgres_bin()
        assert bin_folder is not None, postgres_server_missing()
        self.bin = bin_folder
        self.database = database
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="shopdesk-postgres-"))
        self.data = self.folder / "data"

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{self.database}"

    def __enter__(self) -> PostgresServer:
        try:
            if os.geteuid() == 0:
                owner = pwd.getpwnam("postgres")
                os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                      "-E", "UTF8", "--locale=C", "--no-sync")  # fmt: skip
            with (self.data / "postgresql.conf").open("a") as conf:
                conf.write(
                    f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                    f"unix_socket_directories = '{self.folder}'\n"
                )
            self.start()
            admin = create_engine(
                make_url(self.url).set(database="postgres"), isolation_level="AUTOCOMMIT"
            )
            with admin.connect() as connection:
                connection.execute(text(f'CREATE DATABASE "{self.database}"'))
            admin.dispose()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def start(self) -> None:
        self._run("pg_ctl", "start", "-D", str(self.data), "-l", str(self.folder / "server.log"),
                  "-w", "-t", "120")  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "fast", "-w", "-t", "120")

    def close(self) -> None:
        """Stop the server if it runs and remove its folder."""
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def log(self) -> str:
        path = self.folder / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(
            command, cwd=self.folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, timeout=180, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise AssertionError(
                f"{tool} {' '.join(args)} failed ({done.returncode}): "
                f"{done.stdout.decode(errors='replace')}\n{self.log()}"
            )


@contextmanager
def fresh_postgres_database(*, migrated: bool = True) -> Iterator[str]:
    """The URL of a new database on the shared server (migrated unless ``migrated`` is False),
    dropped afterwards."""
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"shopdesk_faults_{secrets.token_hex(6)}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        url = admin.url.set(database=name).render_as_string(hide_password=False)
        if migrated:
            upgrade(url)
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def through(url: str, port: int) -> str:
    """``url`` pointed at a proxy listening on ``port``."""
    return make_url(url).set(host="127.0.0.1", port=port).render_as_string(hide_password=False)


def engine_core_pids() -> set[int]:
    """This process's own vLLM EngineCore children (their title is ``VLLM::EngineCore``).

    Direct children only: a server the tests started as a subprocess (the e2e tier's) has an
    EngineCore of its own, one level further down, which is not ours to stop.
    """
    found = set()
    for child in psutil.Process().children(recursive=False):
        try:
            if "EngineCore" in " ".join(child.cmdline()):
                found.add(child.pid)
        except psutil.Error:
            continue
    return found
