"""``basra support cases | case | search | player | void | restore | forfeit | suspend | lift |
rename | warn | note | pin | answer | close``: the support desk from a terminal (docs/support.md).

Reading needs no reason; every command that changes something needs ``--agent NAME`` (a named,
active agent: every action has a name) and ``--reason`` (``note`` and ``answer`` are their
text). Each is recorded in the access trail under the agent (``env`` when reading without one).
Whatever a player wrote (report text, names) is printed with control characters made visible,
so it cannot move the terminal's cursor or hide what follows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import msgspec
import typer

from cli.cmd_support import support
from cli.common import DbOption, JsonOption, fail, handles_errors
from cli.shell import dump_json, opened

if TYPE_CHECKING:
    from app.readmodels.projections import Projections
    from app.service.access import AccessService
    from app.service.desk import CaseView, DeskService
    from app.service.desk_records import DeskRecords
    from app.service.match_service import MatchService

AgentOption = Annotated[
    str | None, typer.Option("--agent", help="The named agent acting (or reading).")
]
ReasonOption = Annotated[str | None, typer.Option("--reason", help="Why (never empty).")]
CaseOption = Annotated[
    str | None, typer.Option("--case", help="The case this action serves (recorded in it).")
]


@dataclass
class Desk:
    """What one desk command works with, over one opened store."""

    service: MatchService
    access: AccessService
    records: DeskRecords
    desk: DeskService
    projections: Projections
    agent: str

    def trail(self, target: str, what: str) -> None:
        """Record the command in the access trail before its answer is shown."""
        from app.api.edges.tokens import new_request_id

        self.access.record_access(self.agent, target, what, new_request_id())


@contextmanager
def desk_of(db: Path | None, agent: str | None, *, acting: bool) -> Iterator[Desk]:
    """The desk over the store, for ``agent`` (checked active; required when ``acting``)."""
    from app.readmodels.projections import Projections
    from app.service.access import AccessService
    from app.service.desk_open import open_desk
    from app.service.players import PlayerService
    from domain.access import ENV_AGENT

    if acting and agent is None:
        raise fail("this command changes something: name the acting agent with --agent NAME")
    with opened(db) as service:
        access = AccessService(service.store)
        if agent is not None:
            found = access.agent_named(agent)
            if found is None or not found.active:
                raise fail(f"no active support agent {agent[:40]!r}")
        projections = Projections(service.store)
        try:
            records, desk = open_desk(
                service.store, PlayerService(service.store), projections.results.catch_up
            )
            yield Desk(service, access, records, desk, projections, agent or ENV_AGENT)
        finally:
            projections.close()


def _shown(value: Any) -> Any:
    """``value`` with every text's control characters made visible."""
    from domain.desk import visible

    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


def _out(data: Any, json: bool, lines: list[str]) -> None:
    if json:
        dump_json(msgspec.to_builtins(data))
        return
    for line in lines:
        print(_shown(line))


def _case_lines(case: CaseView) -> list[str]:
    lines = [
        f"case {case.case_id}  match {case.match_id}  {case.status}  opened {case.opened}",
        f"  categories: {', '.join(case.categories)}",
    ]
    lines += [f"  report {r.at} by {r.player_id} [{r.category}]: {r.text}" for r in case.reports]
    lines += [f"  note {n.at} by {n.agent}: {n.text}" for n in case.notes]
    lines += [f"  pin {p.at} by {p.agent}: {p.evidence} ({p.reason})" for p in case.pins]
    lines += [
        f"  action {a.at} by {a.agent}: {a.action} {a.target} {a.detail} ({a.reason})".replace(
            "  (", " ("
        )
        for a in case.actions
    ]
    if case.answer is not None:
        lines.append(f"  answer: {case.answer}")
    if case.outcome is not None:
        lines.append(f"  closed {case.closed}: {case.outcome}")
    return lines


T = TypeVar("T")
"""What a support action answers."""


def _act(
    db: Path | None, agent: str | None, reason: str | None, what: str, do: Callable[[Desk], T]
) -> T:
    """One support action: the reason checked first (422 ``reason_required``), then ``do`` on
    the desk of a named agent, recorded in the access trail as ``what``."""
    from app.service.desk import reason_of

    reason_of(reason)
    with desk_of(db, agent, acting=True) as d:
        d.trail("-", what)
        return do(d)


@support.command("cases")
@handles_errors
def cases(
    status: Annotated[str | None, typer.Option(help="open or closed")] = None,
    category: Annotated[str | None, typer.Option(help="a report category")] = None,
    agent: AgentOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """The case queue, oldest first."""
    with desk_of(db, agent, acting=False) as d:
        found = d.desk.cases(status, category)
        d.trail("-", f"cases status={status} category={category}")
    lines = [
        f"{c.case_id}  {c.opened}  {c.status:6}  {c.match_id}  {','.join(c.categories)}"
        f"  {len(c.reports)} report(s)"
        for c in found
    ]
    _out(found, json, lines)


@support.command("case")
@handles_errors
def case(
    case_id: Annotated[str, typer.Argument(help="The case id (c-...).")],
    agent: AgentOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """One case: its reports, notes, pins, actions, answer and outcome."""
    with desk_of(db, agent, acting=False) as d:
        found = d.desk.case(case_id)
        d.trail(found.match_id, f"case {case_id}")
    _out(found, json, _case_lines(found))


@support.command("search")
@handles_errors
def search(
    text: Annotated[str, typer.Argument(help="A name prefix or an id prefix.")],
    agent: AgentOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Players by name or id prefix, told apart by id, first seen, matches and rating."""
    from app.readmodels.support_search import search_players

    with desk_of(db, agent, acting=False) as d:
        hits = search_players(d.projections.matches, d.projections.results, text[:64])
        d.trail("-", f"search {text[:64]!r}")
    lines = [
        f"{h.player_id}  {h.name}  first seen {h.first_seen or '-'}  {h.matches} match(es)"
        f"  rating {h.rating:.0f} ({h.rated_matches} rated)  {h.points} points"
        for h in hits
    ]
    _out(hits, json, lines)


@support.command("player")
@handles_errors
def player(
    player_id: Annotated[str, typer.Argument(help="The player id (p-...).")],
    agent: AgentOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """A player's matches, results, reports, sanctions and notes."""
    from app.errors import PlayerNotFoundError

    with desk_of(db, agent, acting=False) as d:
        found = d.desk.players.load(player_id)
        if found is None:
            raise PlayerNotFoundError(f"no player {player_id[:40]!r}")
        results = d.projections.results
        results.catch_up()
        profile = results.profile(player_id)
        history = results.history(player_id, limit=20)
        suspension = d.desk.suspension_of(player_id)
        sanctions = d.desk.sanctions(player_id)
        notes = d.desk.player_notes(player_id)
        cases = [c for c in d.desk.cases() if any(r.player_id == player_id for r in c.reports)]
        d.trail("-", f"player {player_id}")
    data = {
        "player_id": player_id,
        "name": found.shown_name,
        "profile": profile,
        "results": history,
        "suspension": suspension,
        "sanctions": sanctions,
        "notes": notes,
        "reports_by": cases,
    }
    lines = [
        f"{player_id}  {found.shown_name}  rating {profile.rating:.0f}  {profile.points} points"
        f"  {profile.wins}W {profile.draws}D {profile.losses}L",
        f"  suspended until {suspension.until or 'lifted'}" if suspension else "  not suspended",
    ]
    lines += [f"  {r.ended}  {r.match_id}  {r.outcome}  {r.points} pts" for r in history]
    lines += [f"  sanction {msgspec.json.encode(s).decode()}" for s in sanctions]
    lines += [f"  report {c.case_id} on {c.match_id} ({c.status})" for c in cases]
    _out(data, json, lines)


def _action(done: str, target: str, json: bool) -> None:
    if json:
        dump_json({"done": done, "target": target})
    else:
        print(_shown(f"{done} {target}"))


@support.command("void")
@handles_errors
def void(
    match_id: Annotated[str, typer.Argument(help="The match whose result is voided (R28).")],
    reason: ReasonOption = None,
    agent: AgentOption = None,
    case_id: CaseOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Void a finished match's result: points back, ladder as if it was never played (R28)."""
    from app.errors import InvalidActionError
    from app.readmodels.voids import paid_points
    from app.service.desk import reason_of

    reason_of(reason)
    with desk_of(db, agent, acting=True) as d:
        d.service.load(match_id)
        if not paid_points(d.projections.results, match_id):
            raise InvalidActionError(
                "only a finished match that paid points can be voided (not practice, R27)"
            )
        d.trail(match_id, "void")
        d.desk.void(match_id, d.agent, reason, case_id)
    _action("voided", match_id, json)


@support.command("restore")
@handles_errors
def restore(
    match_id: Annotated[str, typer.Argument(help="The voided match to restore (R28).")],
    reason: ReasonOption = None,
    agent: AgentOption = None,
    case_id: CaseOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Put a voided result back in its place in the order (R28)."""
    from app.service.desk import reason_of

    reason_of(reason)
    with desk_of(db, agent, acting=True) as d:
        d.service.load(match_id)
        d.trail(match_id, "restore")
        d.desk.restore(match_id, d.agent, reason, case_id)
    _action("restored", match_id, json)


@support.command("forfeit")
@handles_errors
def forfeit(
    match_id: Annotated[str, typer.Argument(help="The match in play to end (R29, R26).")],
    player_id: Annotated[
        str | None, typer.Option("--player", help="The player (p-...) whose side forfeits.")
    ] = None,
    seat: Annotated[
        int | None, typer.Option("--seat", help="The seat whose side forfeits (or --player).")
    ] = None,
    reason: ReasonOption = None,
    agent: AgentOption = None,
    case_id: CaseOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """End a match in play as a forfeit of a (suspended) player's side (R29, R26)."""
    from app.api.edges.tokens import new_request_id
    from app.service.desk_forfeit import forfeit_side

    done = _act(
        db,
        agent,
        reason,
        f"forfeit {match_id} player={player_id} seat={seat}",
        lambda d: forfeit_side(
            d.service,
            d.desk,
            match_id,
            d.agent,
            reason,
            player_id=player_id,
            seat=seat,
            case_id=case_id,
            request_id=new_request_id(),
        ),
    )
    if json:
        dump_json({"done": "forfeit", "target": match_id} | msgspec.to_builtins(done))
    else:
        holder = f" ({done.player_id})" if done.player_id else ""
        print(_shown(f"forfeited {match_id}: seat {done.seat}{holder}'s side lost, seq {done.seq}"))


@support.command("suspend")
@handles_errors
def suspend(
    player_id: Annotated[str, typer.Argument(help="The player to suspend (R29).")],
    until: Annotated[
        str | None,
        typer.Option(help="UTC, as 2026-01-02T03:04:05.000000Z; left out: until lifted."),
    ] = None,
    reason: ReasonOption = None,
    agent: AgentOption = None,
    case_id: CaseOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Suspend a player: no seat, table, rematch, pool or report until then (R29)."""
    _act(
        db,
        agent,
        reason,
        f"suspend {player_id}",
        lambda d: d.desk.suspend(player_id, d.agent, reason, until, case_id),
    )
    _action(f"suspended until {until or 'lifted'}", player_id, json)


@support.command("lift")
@handles_errors
def lift(
    player_id: Annotated[str, typer.Argument(help="The suspended player.")],
    reason: ReasonOption = None,
    agent: AgentOption = None,
    case_id: CaseOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Lift a player's suspension."""
    _act(
        db,
        agent,
        reason,
        f"lift {player_id}",
        lambda d: d.desk.lift(player_id, d.agent, reason, case_id),
    )
    _action("lifted", player_id, json)


@support.command("rename")
@handles_errors
def rename(
    player_id: Annotated[str, typer.Argument(help="The player to rename.")],
    name: Annotated[str, typer.Argument(help="The new name.")],
    reason: ReasonOption = None,
    agent: AgentOption = None,
    case_id: CaseOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Rename a player whose name is abusive (the old name is kept in the trail)."""
    from app.readmodels.support_search import directory_now

    def renamed(d: Desk) -> str:
        shown = d.desk.rename(player_id, d.agent, reason, name, case_id)
        directory_now(d.projections.matches, d.service.store, player_id)
        return shown

    shown = _act(db, agent, reason, f"rename {player_id}", renamed)
    _action(f"renamed to {shown}", player_id, json)


@support.command("warn")
@handles_errors
def warn(
    player_id: Annotated[str, typer.Argument(help="The player to warn.")],
    reason: ReasonOption = None,
    agent: AgentOption = None,
    case_id: CaseOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Warn a player: the reason is shown to them once, on their next visit."""
    _act(
        db,
        agent,
        reason,
        f"warn {player_id}",
        lambda d: d.desk.warn(player_id, d.agent, reason, case_id),
    )
    _action("warned", player_id, json)


@support.command("note")
@handles_errors
def note(
    case_id: Annotated[str, typer.Argument(help="The case.")],
    text: Annotated[str, typer.Argument(help="The note.")],
    agent: AgentOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """A note on a case (never shown to players)."""
    with desk_of(db, agent, acting=True) as d:
        d.trail("-", f"note case {case_id}")
        found = d.desk.note(case_id, d.agent, text)
    _out(found, json, _case_lines(found))


@support.command("pin")
@handles_errors
def pin(
    case_id: Annotated[str, typer.Argument(help="The case.")],
    seq: Annotated[
        int | None, typer.Option("--seq", help="A seq of the case's match to pin.")
    ] = None,
    refused_id: Annotated[
        str | None, typer.Option("--refused", help="A refused request's id to pin.")
    ] = None,
    reason: ReasonOption = None,
    agent: AgentOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Pin evidence to a case: a seq of its match or a refused request's id."""
    if (seq is None) == (refused_id is None):
        raise fail("pin one piece of evidence: --seq N or --refused REQUEST_ID")
    evidence = f"seq:{seq}" if seq is not None else str(refused_id)
    found = _act(
        db,
        agent,
        reason,
        f"pin case {case_id}",
        lambda d: d.desk.pin(case_id, d.agent, evidence, reason),
    )
    _out(found, json, _case_lines(found))


@support.command("answer")
@handles_errors
def answer(
    case_id: Annotated[str, typer.Argument(help="The case.")],
    text: Annotated[str, typer.Argument(help="The answer its reporters see.")],
    agent: AgentOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Answer a case's reporters (they see it on their profile)."""
    with desk_of(db, agent, acting=True) as d:
        d.trail("-", f"answer case {case_id}")
        found = d.desk.answer(case_id, d.agent, text)
    _out(found, json, _case_lines(found))


@support.command("close")
@handles_errors
def close(
    case_id: Annotated[str, typer.Argument(help="The case.")],
    outcome: Annotated[str, typer.Option(help="no_fault, voided, sanctioned or bug.")] = "",
    reason: ReasonOption = None,
    agent: AgentOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Close a case with an outcome and a reason."""
    found = _act(
        db,
        agent,
        reason,
        f"close case {case_id}",
        lambda d: d.desk.close(case_id, d.agent, outcome, reason),
    )
    _out(found, json, _case_lines(found))


@support.command("refused")
@handles_errors
def refused(
    match_id: Annotated[str, typer.Argument(help="The match.")],
    agent: AgentOption = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """The commands the server refused on a match: when (µs), who, request, code, lateness."""
    from domain.times import utc_text_us

    with desk_of(db, agent, acting=False) as d:
        d.service.load(match_id)
        kept = d.records.refused(match_id)
        presence = d.records.presence(match_id)
        d.trail(match_id, "refused")
    lines = [
        f"{utc_text_us(r.at_us)}  {r.code}  seat {r.seat}  {r.principal}  {r.request_id}"
        f"  seq {r.seq} turn {r.turn} deadline {r.deadline or '-'}"
        + (f"  late by {r.late_us} us" if r.late_us is not None else "")
        for r in kept.records
    ]
    lines.append(f"({kept.dropped} not kept)")
    lines += [
        f"{utc_text_us(p.at_us)}  feed {type(p).__name__[4:].lower()}  seat {p.seat}  {p.principal}"
        for p in presence.records
    ]
    _out(
        {"refused": kept.records, "dropped": kept.dropped, "presence": presence.records},
        json,
        lines,
    )
