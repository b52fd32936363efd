"""Writes the golden replay files and their frames: `python tests/data/golden/make_golden.py`.

One match per rule set at 2 and at 4 seats, each from a fixed text seed (docs/fairness.md), played
through ``domain.decide`` as the service would record it: people take seats through tokens,
bots reply, and at 4 seats one turn is played for a seat whose clock ran out (R25); every event
carries its hash chain link (docs/fairness.md, "The chain"). Times are
fixed so that every run writes the same bytes. Rerun it only when the rules or the renderer
change on purpose, and review the diff.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from domain.bots import Bot, EasyBot, RandomBot
from domain.chain import chained
from domain.commands import Command, CreateMatch, PlayCard, TakeSeat
from domain.decide import decide
from domain.events import CardPlayed, Event, MatchCreated, RoundScored
from domain.evolve import evolve
from domain.fairness import secret_from_text_seed
from domain.recorded import RecordedEvent
from domain.redaction import SUPPORT
from domain.rulesets import RULESETS
from domain.selfplay import bots_for
from domain.state import INITIAL_STATE, MatchState
from domain.views import seat_view
from replays.cursor import MatchCursor, viewer_name
from replays.render import render_frame
from replays.replay_file import write_replay

HERE = Path(__file__).parent
START = datetime(2026, 11, 29, 20, 0, 0, tzinfo=UTC)
PEOPLE = {0: "amira", 2: "bashir"}
AUTO_PLAY = 7  # at 4 seats, seat 2's 7th play is made for it when its clock runs out (R25)


def golden_name(ruleset: str, seats: int) -> str:
    """The match id and file stem of a golden match."""
    return f"golden-{ruleset}-{seats}"


def _stamp(k: int) -> str:
    return (START + timedelta(seconds=7 * k, microseconds=1234 * k)).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ"
    )


class _Recorder:
    """Turns commands into recorded events the way the service does: one time per request."""

    def __init__(self) -> None:
        self.state: MatchState = INITIAL_STATE
        self.recorded: list[RecordedEvent] = []
        self.requests = 0

    def run(self, command: Command, cause: str, bots: dict[int, Bot]) -> None:
        self.requests += 1
        at = _stamp(self.requests)
        request = f"req-{self.requests:04d}"
        self._apply(decide(self.state, command), at, cause, request)
        # Bot seats reply at once, within the same request.
        while self.state.status == "playing" and self.state.turn in bots:
            seat = self.state.turn
            card = bots[seat].choose(seat_view(self.state, seat))
            self._apply(decide(self.state, PlayCard(seat, card)), at, f"bot:{seat}", request)

    def _apply(self, events: tuple[Event, ...], at: str, cause: str, request: str) -> None:
        for event in events:
            self.state = evolve(self.state, event)
            self.recorded.append(
                RecordedEvent(
                    seq=len(self.recorded) + 1,
                    at=at,
                    event=event,
                    caused_by=cause,
                    request_id=request,
                )
            )


def play_golden(ruleset: str, seats: int) -> tuple[list[RecordedEvent], MatchState]:
    """Record one golden match from its fixed seed."""
    name = golden_name(ruleset, seats)
    people = {s: n for s, n in PEOPLE.items() if s < seats}
    bot_seats = tuple(s for s in range(seats) if s not in people)
    kind = "random" if list(RULESETS).index(ruleset) % 2 else "easy"
    recorder = _Recorder()
    created = CreateMatch(
        match_id=name,
        ruleset=ruleset,
        seats=seats,
        secret=secret_from_text_seed(f"golden/{ruleset}/{seats}"),
        bots=bot_seats,
        bot_kind=kind,
    )
    recorder.run(created, "server", {})
    bots = bots_for(recorder.state)
    for seat, person in people.items():
        cause = f"seat:{seat}/token:tok-{person}"
        recorder.run(TakeSeat(seat, person, token_id=f"tok-{person}"), cause, bots)
    # The people play from their own view: amira like the easy bot, bashir at random.
    minds: dict[int, Bot] = {0: EasyBot(), 2: RandomBot(secret_from_text_seed("golden/bashir"), 2)}
    played = {s: 0 for s in people}
    while recorder.state.status == "playing":
        seat = recorder.state.turn
        assert seat is not None and seat in people
        played[seat] += 1
        auto = seats == 4 and seat == 2 and played[seat] == AUTO_PLAY
        view = seat_view(recorder.state, seat)
        card = EasyBot().choose(view) if auto else minds[seat].choose(view)
        cause = "server" if auto else f"seat:{seat}/token:tok-{people[seat]}"
        recorder.run(PlayCard(seat, card, auto=auto), cause, bots)
    # Each event carries its link of the hash chain, as the service records it.
    return chained(recorder.recorded, None, created.secret), recorder.state


def frame_steps(recorded: list[RecordedEvent]) -> list[tuple[int, int]]:
    """(seq, viewer) of the frames kept beside each golden file."""
    first_floor = next(r.seq for r in recorded if r.event.__struct_config__.tag == "floor_dealt")
    basra = next(
        (r.seq for r in recorded if isinstance(r.event, CardPlayed) and r.event.basra), None
    )
    scored = next(r.seq for r in recorded if isinstance(r.event, RoundScored))
    steps = [(first_floor, SUPPORT), (first_floor + 5, SUPPORT), (scored, SUPPORT)]
    if basra is not None:
        steps.append((basra, SUPPORT))
    steps += [(first_floor + 5, 1), (len(recorded), SUPPORT), (len(recorded), 0)]
    return steps


def frames_text(recorded: list[RecordedEvent]) -> str:
    """The kept frames, each under a `=== seq N as VIEWER` line."""
    cursor = MatchCursor(recorded)
    parts = []
    for seq, viewer in frame_steps(recorded):
        parts.append(f"=== seq {seq} as {viewer_name(viewer)}\n")
        parts.append(render_frame(cursor.position(seq, viewer)))
    return "".join(parts)


def main() -> None:
    """Write every golden file and its frames next to this script."""
    for ruleset in RULESETS:
        for seats in (2, 4):
            recorded, state = play_golden(ruleset, seats)
            assert isinstance(recorded[0].event, MatchCreated)
            stem = HERE / golden_name(ruleset, seats)
            stem.with_suffix(".jsonl").write_bytes(write_replay(recorded, state.names))
            stem.with_suffix(".frames.txt").write_text(frames_text(recorded), encoding="utf-8")
            print(f"{stem.name}: {len(recorded)} events", file=sys.stderr)


if __name__ == "__main__":
    main()
