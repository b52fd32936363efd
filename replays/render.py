"""Terminal frames of a position: floor in order, visible hands, counts, piles, scores, turn."""

from __future__ import annotations

import textwrap
from typing import Final

import msgspec

from domain.events import Event
from domain.state import side_of
from domain.views import TableView
from replays.banner import banner
from replays.cursor import Position, Viewer, hands_of, viewer_name
from replays.divergence import Divergence
from replays.words import cards_text, describe, describe_cause

FRAME_WIDTH: Final = 80
"""Long lines of words are wrapped to this width; card rows are never wrapped."""


class PositionReport(msgspec.Struct, frozen=True, kw_only=True):
    """A position for scripts (``--json``): the viewer's view, the event and the action in words."""

    seq: int
    last_seq: int
    viewer: Viewer
    view: TableView
    event: Event
    action: str
    at: str
    caused_by: str | None
    request_id: str | None
    divergence: Divergence | None = None


def report(position: Position, divergence: Divergence | None = None) -> PositionReport:
    """The machine-readable form of a position (still redacted for its viewer).

    ``divergence`` is the first event that does not verify, as the viewer may read it, from
    that event on (``replays.banner.visible_divergence``).
    """
    return PositionReport(
        seq=position.seq,
        last_seq=position.last_seq,
        viewer=position.viewer,
        view=position.view,
        event=position.event,
        action=describe(position.event, position.viewer),
        at=position.at,
        caused_by=position.caused_by,
        request_id=position.request_id,
        divergence=divergence,
    )


def _status_line(view: TableView) -> str:
    parts = [f"round {view.round}" if view.round else "before the first deal"]
    if view.deal:
        parts.append(f"deal {view.deal}")
    if view.dealer is not None:
        parts.append(f"dealer seat {view.dealer}")
    if view.status == "waiting":
        parts.append("waiting for seats")
    elif view.status == "ended":
        parts.append("ended")
    return " · ".join(parts)


def _recorded_line(position: Position) -> str:
    line = f"recorded {position.at}"
    if position.caused_by is not None:
        line += f" by {describe_cause(position.caused_by)}"
    if position.request_id is not None:
        line += f" (request {position.request_id})"
    return line


def _seat_rows(view: TableView) -> list[str]:
    hands = hands_of(view)
    rows = ["   seat  player          cards  hand"]
    for seat in range(view.seats):
        marker = ">" if view.turn == seat else " "
        given = view.names[seat] if seat < len(view.names) else None
        name = given if given else "(empty)"
        hand = hands[seat]
        shown = "hidden" if hand is None else (cards_text(hand) if hand else "-")
        rows.append(f" {marker} {seat:<5} {name[:15]:<15} {view.hand_counts[seat]:>5}  {shown}")
    return rows


def _side_rows(view: TableView) -> list[str]:
    rows = ["   side  seats  pile  Basra  score"]
    for side in (0, 1):
        seats = ", ".join(str(s) for s in range(view.seats) if side_of(s) == side)
        rows.append(
            f"   {side:<5} {seats:<6} {view.piles[side]:>4} {view.round_basra[side]:>6}"
            f" {view.scores[side]:>6}"
        )
    return rows


def _end_line(view: TableView) -> str | None:
    if view.status != "ended":
        return None
    totals = "–".join(str(t) for t in view.scores)
    if view.winner is None:
        return f"match ended ({view.end_reason}): no winner, {totals}"
    return f"match ended ({view.end_reason}): side {view.winner} wins, {totals}"


class FrameParts(msgspec.Struct, frozen=True, kw_only=True):
    """A frame's lines by part, so a small terminal can fold or drop the table part first.

    ``seq`` and ``event`` are what a frame is about; the rest is the table around them.
    """

    banner: tuple[str, ...]
    title: str
    seq: str
    recorded: str
    event: tuple[str, ...]
    floor: str
    stock: str
    seats: tuple[str, ...]
    sides: tuple[str, ...]
    sides_line: str
    turn: str
    end: str | None


def _sides_line(view: TableView) -> str:
    sides = (
        f"side {side}: {view.scores[side]} (pile {view.piles[side]}, Basra"
        f" {view.round_basra[side]})"
        for side in (0, 1)
    )
    return "score  " + " · ".join(sides)


def frame_parts(
    position: Position, divergence: Divergence | None = None, width: int = FRAME_WIDTH
) -> FrameParts:
    """The parts of a frame, words wrapped to ``width``: what the viewer may see (R23)."""
    view = position.view
    turn = f"seat {view.turn}" if view.turn is not None else "nobody"
    if view.deadline is not None:
        turn += f" until {view.deadline} (R25)"
    if view.timed_out:
        turn += f" · run out: seat {', '.join(str(s) for s in view.timed_out)} (R25a)"
    return FrameParts(
        banner=tuple(banner(divergence, width)),
        title=f"match {view.match_id} · {view.ruleset} · {view.seats} seats · target"
        f" {view.target} · viewer: {viewer_name(position.viewer)}",
        seq=f"seq {position.seq} of {position.last_seq} · {_status_line(view)}",
        recorded=_recorded_line(position),
        event=tuple(
            textwrap.wrap(
                describe(position.event, position.viewer),
                width=width,
                initial_indent="  ",
                subsequent_indent="    ",
            )
        ),
        # R12: the floor is shown in the order its cards arrived, for every viewer.
        floor=f"floor ({len(view.floor)})  {cards_text(view.floor) if view.floor else '-'}",
        stock=f"stock      {view.stock} cards",
        seats=tuple(_seat_rows(view)),
        sides=tuple(_side_rows(view)),
        sides_line=_sides_line(view),
        turn=f"carry {view.carry} · turn: {turn}",
        end=_end_line(view),
    )


def render_frame(position: Position, divergence: Divergence | None = None) -> str:
    """One frame of the replay as text: what the position's viewer may see, nothing more (R23).

    ``divergence`` (as the viewer may read it) puts a warning banner on top of the frame.
    """
    parts = frame_parts(position, divergence)
    lines = [
        *parts.banner,
        parts.title,
        parts.seq,
        parts.recorded,
        "",
        *parts.event,
        "",
        parts.floor,
        parts.stock,
        "",
        *parts.seats,
        "",
        *parts.sides,
        parts.turn,
    ]
    if parts.end is not None:
        lines.append(parts.end)
    return "\n".join(lines) + "\n"
