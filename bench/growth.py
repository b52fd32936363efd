"""Cost growth: a play's latency with 1,000 and with 100,000 stored matches, SQLite and PostgreSQL.

For each store: one fresh store per size, each filled with that many matches (a short stream of
the first events of a real recorded match: created and seated; written straight through the
store in transactions of 1,000 matches). A real store reaches 100,000 matches over weeks, with
the database's own maintenance in between; a bulk fill of 300,000 rows in a minute sets off
PostgreSQL's autovacuum right after it, so the fill ends with ``VACUUM ANALYZE`` of the schema's
tables (``ANALYZE`` on SQLite) before anything is measured. Then ``--plays`` plays are made
through ``MatchService.play_card`` in fresh practice matches (a person against an easy bot; the
answer includes the bot's reply), one at a time, alternating between the sizes in rounds of
``--round`` plays so that both sizes see the same machine; each play's latency is taken. p50 and
p99 of every size are printed, with the ratio of each size's to the smallest's.

    python -m bench growth [--sizes 1000,100000] [--plays 600] [--round 20] \
        [--postgres URL] [--dir DIR] [--no-maintenance]

PostgreSQL is measured when ``--postgres`` (default ``$BASRA_TEST_POSTGRES``) names a server.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from psycopg import sql

from app.config import PostgresSettings
from app.service import MatchService, utc_now
from app.store.match_store import MatchStore
from app.store.postgres import connect, drop_schema
from bench.before import Legacy
from bench.harness import say
from bench.options import Shared
from bench.servers import new_schema, settings_for
from bench.stats import quantile
from domain.commands import CreateMatch
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.selfplay import play_match

FILL_BATCH = 1000
"""Matches per transaction while filling."""


SHARED = Shared(postgres="optional", workdir=True)
"""The PostgreSQL server (measured when given), and the folder of the SQLite files."""

LINE = r"^  (\w+) +([\d,]+) matches: p50 +([\d.]+) ms  p99 +([\d.]+) ms  p50 x([\d.]+)"
"""One size's printed line."""


def read_legacy(text: str) -> dict[str, float]:
    """The figures of the old script's lines (bench/bench_growth.py)."""
    found: dict[str, float] = {}
    for line in re.finditer(LINE, text, re.MULTILINE):
        kind, size = line.group(1), line.group(2).replace(",", "")
        for k, key in enumerate(("p50_ms", "p99_ms", "p50_ratio"), start=3):
            found[f"{kind}/{size}/{key}"] = float(line.group(k))
    return found


LEGACY = Legacy("bench.bench_growth", read_legacy, names={"postgres": "--postgres", "dir": "--dir"})
"""The old script, bench/bench_growth.py, printed the same lines."""


def filler() -> list[RecordedEvent]:
    """The first three events of a real recorded match (created, and the seats)."""
    events, _ = play_match(
        CreateMatch(
            match_id="filler",
            ruleset="classic",
            seats=2,
            secret=secret_from_text_seed("bench/growth"),
            bots=(0, 1),
        )
    )
    at = utc_now()
    return [RecordedEvent(seq=i, at=at, event=e) for i, e in enumerate(events[:3], 1)]


def fill(store: MatchStore, start: int, stop: int, template: list[RecordedEvent]) -> None:
    """Store matches ``start`` … ``stop - 1``, FILL_BATCH per transaction."""
    run = uuid.uuid4().hex[:6]
    for first in range(start, stop, FILL_BATCH):
        rows = [
            store.mapper.to_stored_event(store.streams.create(f"fill-{run}-{k}"), recorded)
            for k in range(first, min(stop, first + FILL_BATCH))
            for recorded in template
        ]
        store.recorder.insert_events(rows)


class Player:
    """Plays in fresh practice matches of one service, one at a time, timing each play."""

    def __init__(self, service: MatchService, seed: str) -> None:
        self.service = service
        self.seed = seed
        self.matches = 0
        self.match_id = ""
        self.latencies: list[float] = []

    def _new_match(self) -> None:
        self.match_id = self.service.create_match(
            ruleset="classic",
            seats=2,
            bots=(1,),
            secret=secret_from_text_seed(f"growth/{self.seed}/{self.matches}"),
        ).match_id
        self.matches += 1
        self.service.take_seat(self.match_id, 0, "bench", token_id="t0")

    def play(self, plays: int) -> None:
        """Make ``plays`` more plays, starting matches as they end."""
        for _ in range(plays):
            state = self.service.load(self.match_id) if self.match_id else None
            if state is None or state.status != "playing":
                self._new_match()
                state = self.service.load(self.match_id)
            card = state.hands[0][0]
            began = time.perf_counter()
            self.service.play_card(self.match_id, 0, card, caused_by="seat:0/token:t0")
            self.latencies.append((time.perf_counter() - began) * 1000)


def maintain(kind: str, store: MatchStore, settings: PostgresSettings | None) -> None:
    """What the database does by itself over the weeks a real store takes to grow."""
    if settings is not None:
        with connect(settings) as connection:
            tables = connection.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s", (settings.schema,)
            ).fetchall()
            for (table,) in tables:
                connection.execute(
                    sql.SQL("VACUUM ANALYZE {}.{}").format(
                        sql.Identifier(settings.schema), sql.Identifier(str(table))
                    )
                )
    elif kind == "sqlite":
        path = store.config.sqlite_path
        assert path is not None
        with sqlite3.connect(path) as connection:
            connection.execute("ANALYZE")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's own options."""
    parser.add_argument("--sizes", default="1000,100000")
    parser.add_argument("--plays", type=int, default=600)
    parser.add_argument("--round", type=int, default=20)
    parser.add_argument(
        "--no-maintenance",
        action="store_true",
        help="measure right after the bulk fill, without VACUUM ANALYZE / ANALYZE",
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Fill, play side by side, print; the figures by store and size."""
    sizes = sorted(int(x) for x in args.sizes.split(","))
    template = filler()
    kinds = ["sqlite"] + (["postgres"] if args.postgres else [])
    print(f"## A play's latency by stored matches ({args.plays} plays a size, side by side)")
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-growth-", dir=args.dir) as tmp:
        for kind in kinds:
            opened: list[tuple[MatchService, PostgresSettings | None]] = []
            try:
                players: list[Player] = []
                for size in sizes:
                    settings = None
                    if kind == "postgres":
                        settings = settings_for(args.postgres, new_schema())
                        store = MatchStore.postgres(settings)
                    else:
                        store = MatchStore.sqlite(Path(tmp) / f"growth-{size}.db")
                    service = MatchService(store)
                    opened.append((service, settings))
                    say(f"{kind}: filling to {size:,} matches")
                    fill(store, 0, size, template)
                    if not args.no_maintenance:
                        maintain(kind, store, settings)
                    players.append(Player(service, f"{kind}/{size}"))
                say(f"{kind}: {args.plays} plays a size, {args.round} at a time")
                done = 0
                while done < args.plays:
                    step = min(args.round, args.plays - done)
                    for player in players:
                        player.play(step)
                    done += step
                base = statistics.median(players[0].latencies)
                for size, player in zip(sizes, players, strict=True):
                    p50 = statistics.median(player.latencies)
                    p99 = quantile(player.latencies, 0.99)
                    figures.setdefault(kind, {})[str(size)] = {
                        "p50_ms": p50,
                        "p99_ms": p99,
                        "p50_ratio": p50 / base,
                    }
                    print(
                        f"  {kind:<8} {size:>9,} matches: p50 {p50:7.2f} ms  "
                        f"p99 {p99:7.2f} ms  p50 x{p50 / base:.2f}",
                        flush=True,
                    )
            finally:
                for service, settings in opened:
                    service.close()
                    if settings is not None:
                        drop_schema(settings)
    return figures
