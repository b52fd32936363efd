"""Server fixtures of the benchmarks: free ports, ``basra serve`` (and any other server) as a
process waited on until healthy and stopped after, fresh PostgreSQL schemas, and the CPU time of
a process tree read from ``/proc``."""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import msgspec

from app.config import PostgresSettings, parse_database_url
from app.store.postgres import drop_schema
from bench.client import HOST

__all__ = [
    "HOST",
    "NO_LIMITS",
    "SERVE_CASES",
    "drop_schema",
    "free_port",
    "fresh_schema",
    "new_schema",
    "process_tree",
    "serve_env",
    "served",
    "served_case",
    "serving",
    "settings_for",
    "tree_cpu_seconds",
    "wait_healthy",
]

NO_LIMITS = ("players", "matches", "wrong_tokens", "feeds")
"""The API's abuse limits, each turned off for a benchmark (one client address, many matches)."""

SERVE_CASES = (("sqlite-1", None, 1), ("pg-1", "pg", 1), ("pg-2", "pg", 2))
"""(label, store, processes) of the served runs."""


def free_port() -> int:
    """A free loopback port."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def settings_for(url: str, schema: str) -> PostgresSettings:
    """The benchmark's PostgreSQL settings in a schema of its own."""
    return msgspec.structs.replace(parse_database_url(url), schema=schema)


def new_schema() -> str:
    """A fresh schema name."""
    return f"bench_{uuid.uuid4().hex[:10]}"


def schema_url(url: str, schema: str) -> str:
    """``url`` (its own query left out) naming ``schema``."""
    return f"{url.split('?')[0]}?schema={schema}"


@contextlib.contextmanager
def fresh_schema(url: str) -> Iterator[tuple[str, PostgresSettings]]:
    """A fresh schema of the PostgreSQL server at ``url``: (its URL, its settings); dropped
    after."""
    settings = settings_for(url, new_schema())
    try:
        yield schema_url(url, settings.schema), settings
    finally:
        drop_schema(settings)


def wait_healthy(port: int, process: subprocess.Popen[bytes], seconds: float) -> None:
    """Wait for ``/health`` to answer 200 (a loaded machine starts two workers slowly)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        conn = http.client.HTTPConnection(HOST, port, timeout=5)
        try:
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.1)
        finally:
            conn.close()
    raise RuntimeError("the server did not start")


def serve_env(env_extra: dict[str, str] | None = None, tree: Path | None = None) -> dict[str, str]:
    """This process's environment for a server, without any store settings of its own;
    ``tree``: the checkout whose code it runs."""
    env = dict(os.environ) | (env_extra or {})
    if tree is not None:  # after any path of ``env_extra`` (a benchmark's own sitecustomize)
        env["PYTHONPATH"] = os.pathsep.join(
            path for path in ((env_extra or {}).get("PYTHONPATH"), str(tree)) if path
        )
    for name in list(env):
        if name.startswith("POSTGRES_") or name == "BASRA_DATABASE_URL":
            del env[name]
    return env


@contextlib.contextmanager
def serving(
    command: Sequence[str],
    port: int,
    env: dict[str, str],
    log_path: Path,
    *,
    cwd: Path | None = None,
    start_seconds: float = 180.0,
) -> Iterator[int]:
    """Run ``command`` (a server on ``port``) until ``/health`` answers; its pid; stopped
    (SIGTERM, then SIGKILL after 20 s) after. The server's output goes to ``log_path``."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            list(command), env=env, stdout=log, stderr=subprocess.STDOUT, cwd=cwd or Path.cwd()
        )
        try:
            try:
                wait_healthy(port, process, start_seconds)
            except RuntimeError:
                log.flush()
                tail = log_path.read_text(errors="replace")[-2000:]
                raise RuntimeError(
                    f"{command[2:4]} on port {port} did not start:\n{tail}"
                ) from None
            yield process.pid
        finally:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def served(
    workdir: Path,
    workers: int = 1,
    database_url: str | None = None,
    env_extra: dict[str, str] | None = None,
    tree: Path | None = None,
    server: str = "uvicorn",
    serve_args: Sequence[str] = (),
    *,
    db: Path | None = None,
    readmodels: bool = True,
    start_seconds: float = 180.0,
) -> Iterator[tuple[int, int]]:
    """``basra serve`` with every abuse limit off, on ``database_url``, else on ``db``, else on
    a fresh SQLite file of ``workdir``; its port and pid.

    ``tree``: run the server from another checkout of the code (an earlier commit), for
    before/after. ``serve_args``: more options of ``basra serve``. ``readmodels``: the read
    models in a file of their own in ``workdir`` (else where the store's settings put them)."""
    port = free_port()
    env = serve_env(env_extra, tree)
    if readmodels:
        env["BASRA_READMODELS"] = str(workdir / f"readmodels-{port}.sqlite3")
    else:
        env.pop("BASRA_READMODELS", None)
    command = [sys.executable, "-m", "cli.main", "serve", "--host", HOST, "--port", str(port)]
    command += ["--workers", str(workers), "--server", server]
    command += serve_args
    if database_url is not None:
        command += ["--database-url", database_url]
    else:
        command += ["--db", str(db or workdir / f"api-{port}.db")]
    command += [arg for name in NO_LIMITS for arg in ("--rate-limit", f"{name}=off")]
    log_path = workdir / f"serve-{port}.log"
    with serving(command, port, env, log_path, cwd=tree, start_seconds=start_seconds) as pid:
        yield port, pid


@contextlib.contextmanager
def served_case(
    workdir: Path,
    case: tuple[str, str | None, int],
    postgres: str | None,
    env_extra: dict[str, str],
    tree: Path | None = None,
    server: str = "uvicorn",
    serve_args: Sequence[str] = (),
) -> Iterator[tuple[int, int]]:
    """``served`` for one of ``SERVE_CASES``: on PostgreSQL in a fresh schema of ``postgres``,
    dropped afterwards."""
    _, store, workers = case
    if store != "pg":
        with served(workdir, workers, None, env_extra, tree, server, serve_args) as running:
            yield running
        return
    assert postgres is not None
    with (
        fresh_schema(postgres) as (url, _),
        served(workdir, workers, url, env_extra, tree, server, serve_args) as running,
    ):
        yield running


def _process_stats() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds of user + system, every thread) of every process, from
    ``/proc`` (Linux; a process that cannot be read is left out)."""
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    return stats


def _tree(pid: int, stats: dict[int, tuple[int, float]]) -> set[int]:
    """``pid`` and every process below it in ``stats``."""
    tree = {pid}
    grew = True
    while grew:
        grown = tree | {child for child, (parent, _) in stats.items() if parent in tree}
        grew = grown != tree
        tree = grown
    return tree


def process_tree(pid: int) -> set[int]:
    """Process ``pid`` and its descendants (Linux, from ``/proc``)."""
    return _tree(pid, _process_stats())


def tree_cpu_seconds(pid: int) -> float:
    """CPU time (user + system, every thread) of process ``pid`` and its descendants, from
    ``/proc`` (Linux; 0.0 where it cannot be read)."""
    stats = _process_stats()
    return sum(stats[p][1] for p in _tree(pid, stats) if p in stats)
