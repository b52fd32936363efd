r"""Where a closed loop's latency comes from: the rate, the spread, and the processes' shares.

Under a closed loop every client waits for its answer before it plays again, so the mean
answer time is the number of clients divided by the rate (Little's law): 50 matches at 1,000
plays/s wait 50 ms on average, however the server spends its time. This benchmark serves
``basra serve`` (SQLite with one process, PostgreSQL with one and with two, as in
bench/scale.py, the abuse limits off) under the closed loop of ``--matches`` practice
matches for ``--seconds``, ``--repeats`` times, interleaved, and prints for each run:

- plays/s, p50 and p99 of a play's answer, and the mean that Little's law gives for that rate;
- with several processes, how many of the keep-alive connections each process accepted (read
  from ``/proc``: the server side of each client's socket and the process holding it) and each
  process's own plays/s, p50 and p99;
- the CPU per play of the server's processes, of PostgreSQL's (its postmaster and every
  backend; read when the data directory's ``postmaster.pid`` is readable) and of the load
  generator (this process), and how much of the machine's CPU stayed idle (``/proc/stat``);
- from the server's own ``/metrics`` (the same before and after the load), the share of play
  requests and of store appends that took at most 10, 25 and 50 ms inside the server: what
  a play waited for its append, and what it waited for a turn of its process's event loop.

Linux only (``/proc``). Run from the repository root:

    python -m bench balance --postgres postgresql://postgres@127.0.0.1:5432/test \
        [--cases sqlite-1,pg-1,pg-2] [--matches 50] [--seconds 10] [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
from prometheus_client.parser import text_string_to_metric_families

from bench.before import Legacy
from bench.client import Connection, closed_loop
from bench.harness import say
from bench.options import Shared
from bench.servers import SERVE_CASES, process_tree, served_case, tree_cpu_seconds
from bench.stats import quantile

SHARED = Shared(seconds=10.0, repeats=3, postgres="optional")
"""Each served run's length, the repeats, the PostgreSQL server of the ``pg`` cases."""

FIGURES = (
    "plays_s",
    "p50",
    "p99",
    "mean_ms",
    "little_mean_ms",
    "server_cpu_ms_per_play",
    "database_cpu_ms_per_play",
    "client_cpu_ms_per_play",
    "machine_idle_pct",
)
"""A case's figures, each the median over its runs."""

RUN_LINE = (
    r"(\S+)@\d+ run \d+: ([\d,]+) plays/s p50 ([\d.]+) p99 ([\d.]+) ms, mean ([\d.]+) "
    r"\(clients / rate ([\d.]+)\)\n +CPU a play: server ([\d.]+) ms, PostgreSQL ([\d.]+) ms, "
    r"load generator ([\d.]+) ms; machine idle ([\d.]+)%"
)
"""One run's first two printed lines."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's runs (bench/bench_balance.py), medians by case."""
    runs: dict[str, list[dict[str, float]]] = {}
    for found in re.finditer(RUN_LINE, text):
        values = [float(x.replace(",", "")) for x in found.groups()[1:]]
        runs.setdefault(found.group(1), []).append(dict(zip(FIGURES, values, strict=True)))
    return {
        f"{label}/{key}": statistics.median(run[key] for run in found_runs)
        for label, found_runs in runs.items()
        for key in FIGURES
    }


LEGACY = Legacy(
    "bench.bench_balance",
    read_legacy,
    names={"seconds": "--seconds", "repeats": "--repeats", "postgres": "--postgres"},
)
"""The old script, bench/bench_balance.py, printed the same lines."""


def socket_owners(pids: set[int]) -> dict[int, int]:
    """Socket inode -> pid, for every socket the processes ``pids`` hold open."""
    owners: dict[int, int] = {}
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                owners[int(target[8:-1])] = pid
    return owners


def server_side(port: int) -> dict[int, int]:
    """Client port -> socket inode of the server's end of each TCP connection to ``port``."""
    ends: dict[int, int] = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, inode = fields[1], fields[2], int(fields[9])
        if int(local.split(":")[1], 16) == port and inode:
            ends[int(remote.split(":")[1], 16)] = inode
    return ends


def postmaster_pid(url: str | None) -> int | None:
    """The pid of the PostgreSQL server at ``url``, when its ``postmaster.pid`` is readable."""
    if not url:
        return None
    try:
        with psycopg.connect(url) as conn:
            row = conn.execute("SHOW data_directory").fetchone()
        assert row is not None
        return int((Path(row[0]) / "postmaster.pid").read_text().split()[0])
    except (OSError, psycopg.Error, ValueError, IndexError):
        return None


def idle_ticks() -> tuple[int, int]:
    """(idle, all) clock ticks of every CPU since boot, from ``/proc/stat``."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return ticks[3] + ticks[4], sum(ticks)


PLAY_REQUESTS = {"route": "/matches/{match_id}/plays", "method": "POST"}
"""The labels of a play's series in ``basra_request_seconds``."""

WITHIN_MS = (10, 25, 50)
"""The bounds, in ms, of the shares read off the server's histograms."""


def scrape(port: int) -> str:
    """The server's ``/metrics`` text."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        return str(answer.read().decode())


def histogram(text: str, name: str, labels: dict[str, str]) -> dict[str, float]:
    """Bucket bound -> count (and ``count``) of histogram ``name``'s series whose labels
    include ``labels``, summed over the series (and the processes)."""
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        if family.name != name:
            continue
        for sample in family.samples:
            if any(sample.labels.get(key) != value for key, value in labels.items()):
                continue
            if sample.name == f"{name}_bucket":
                bound = sample.labels["le"]
                found[bound] = found.get(bound, 0.0) + sample.value
            elif sample.name == f"{name}_count":
                found["count"] = found.get("count", 0.0) + sample.value
    return found


def shares_within(before: str, after: str, name: str, labels: dict[str, str]) -> dict[str, float]:
    """Per cent of the observations made between two scrapes that took at most each of
    ``WITHIN_MS``."""
    first, last = histogram(before, name, labels), histogram(after, name, labels)
    count = last.get("count", 0.0) - first.get("count", 0.0)
    shares: dict[str, float] = {"count": count}
    for ms in WITHIN_MS:
        bound = str(ms / 1000)
        done = last.get(bound, 0.0) - first.get(bound, 0.0)
        shares[f"{ms}ms"] = round(100 * done / count, 1) if count else 0.0
    return shares


async def loop_by_process(
    port: int, server_pid: int, database_pid: int | None, matches: int, seconds: float, seed: int
) -> dict[str, Any]:
    """bench_scale's closed loop, each play's latency kept with the process that served its
    connection, and the CPU, idle time and server histograms of the same window."""
    latencies: dict[int, list[float]] = {}
    process_of: dict[int, int] = {}
    before: dict[str, Any] = {}

    async def at_start(connections: dict[int, Connection]) -> None:
        owners = socket_owners(process_tree(server_pid))
        ends = server_side(port)
        for i, conn in connections.items():
            assert conn.writer is not None
            client_port = conn.writer.get_extra_info("sockname")[1]
            process_of[i] = owners.get(ends.get(client_port, -1), -1)
        before["metrics"] = await asyncio.to_thread(scrape, port)
        before["server"] = tree_cpu_seconds(server_pid)
        before["database"] = tree_cpu_seconds(database_pid) if database_pid else 0.0
        before["client"] = time.process_time()
        before["idle"] = idle_ticks()

    run = await closed_loop(port, matches, seconds, seed, at_start=at_start, by_client=latencies)
    idle_after = idle_ticks()
    cpu_server = tree_cpu_seconds(server_pid) - before["server"]
    cpu_database = (tree_cpu_seconds(database_pid) - before["database"]) if database_pid else 0.0
    cpu_client = time.process_time() - before["client"]
    metrics_after = await asyncio.to_thread(scrape, port)
    idle = (idle_after[0] - before["idle"][0]) / max(1, idle_after[1] - before["idle"][1])
    every = [ms for mine in latencies.values() for ms in mine]
    plays = max(1, len(every))
    by_process: dict[str, dict[str, float]] = {}
    for pid in sorted(set(process_of.values())):
        own = sorted(ms for i, mine in latencies.items() if process_of[i] == pid for ms in mine)
        by_process[str(pid)] = {
            "connections": sum(1 for i in process_of if process_of[i] == pid),
            "plays_s": round(len(own) / seconds, 1),
            "p50": round(quantile(own, 0.5), 1),
            "p99": round(quantile(own, 0.99), 1),
        }
    rate = run["plays_s"]
    return run | {
        "little_mean_ms": round(matches / rate * 1000, 1) if rate else 0.0,
        "mean_ms": round(statistics.fmean(every), 1) if every else 0.0,
        "server_cpu_ms_per_play": round(cpu_server * 1000 / plays, 3),
        "database_cpu_ms_per_play": round(cpu_database * 1000 / plays, 3),
        "client_cpu_ms_per_play": round(cpu_client * 1000 / plays, 3),
        "machine_idle_pct": round(100 * idle, 1),
        "processes": by_process,
        "play_requests_within": shares_within(
            before["metrics"],
            metrics_after,
            "basra_request_seconds",
            PLAY_REQUESTS,
        ),
        "appends_within": shares_within(
            before["metrics"], metrics_after, "basra_store_seconds", {"operation": "append"}
        ),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--cases", default="sqlite-1,pg-1,pg-2")
    parser.add_argument("--matches", type=int, default=50)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Run the cases asked for and print each run; the medians by case, and every run."""
    cases = [c for c in SERVE_CASES if c[0] in args.cases.split(",")]
    if any(store == "pg" for _, store, _ in cases) and not args.postgres:
        raise SystemExit("--postgres URL (or BASRA_TEST_POSTGRES) is needed for the pg cases")
    results: dict[str, list[dict[str, Any]]] = {}
    database_pid = postmaster_pid(args.postgres)
    with tempfile.TemporaryDirectory(prefix="bench-balance-") as tmp:
        for r in range(args.repeats):
            for case in cases:
                label, store, _ = case
                with served_case(Path(tmp), case, args.postgres, {}) as (port, pid):
                    say(f"{label}, repeat {r + 1}")
                    run = asyncio.run(
                        loop_by_process(
                            port,
                            pid,
                            database_pid if store else None,
                            args.matches,
                            args.seconds,
                            r,
                        )
                    )
                results.setdefault(label, []).append(run)
                shares = "; ".join(
                    f"{p['connections']:.0f} conns {p['plays_s']:,.0f} plays/s "
                    f"p50 {p['p50']} p99 {p['p99']}"
                    for p in run["processes"].values()
                )
                print(
                    f"{label}@{args.matches} run {r + 1}: {run['plays_s']:,.0f} plays/s "
                    f"p50 {run['p50']} p99 {run['p99']} ms, mean {run['mean_ms']} "
                    f"(clients / rate {run['little_mean_ms']})\n    CPU a play: server "
                    f"{run['server_cpu_ms_per_play']} ms, PostgreSQL "
                    f"{run['database_cpu_ms_per_play']} ms, load generator "
                    f"{run['client_cpu_ms_per_play']} ms; machine idle "
                    f"{run['machine_idle_pct']}%\n    within 10/25/50 ms in the server: plays "
                    + "/".join(f"{run['play_requests_within'][f'{ms}ms']}%" for ms in WITHIN_MS)
                    + ", appends "
                    + "/".join(f"{run['appends_within'][f'{ms}ms']}%" for ms in WITHIN_MS)
                    + (f"\n    by process: {shares}" if len(run["processes"]) > 1 else ""),
                    flush=True,
                )
    figures: dict[str, Any] = {
        label: {key: statistics.median(run[key] for run in runs) for key in FIGURES}
        for label, runs in results.items()
    }
    return figures | {"runs": results}
