"""``basra support``: named support agents (add, revoke, list) and the log of what they saw.

Each agent's token is printed once by ``add`` and kept only as its SHA-256; a revoked agent is
refused by every API process at once. ``log`` shows the support access trail: every support
request that was shown a hidden hand, a replay before the end or a support feed (docs/api.md,
"Support agents"), newest first.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cli.common import DbOption, JsonOption, app, handles_errors
from cli.shell import dump_json, echo_err, opened

support = typer.Typer(
    help="Named support agents and the trail of what support was shown.",
    no_args_is_help=True,
)
"""The ``basra support`` command group."""

app.add_typer(support, name="support")

NameArgument = Annotated[
    str,
    typer.Argument(help="The agent's name: 1-32 of a-z, 0-9, '_', '-', a letter first."),
]


@support.command("add")
@handles_errors
def add(name: NameArgument, db: DbOption = None, json: JsonOption = False) -> None:
    """Add a support agent and print its token (shown this once; only its hash is kept)."""
    from app.api.edges.tokens import AGENT_PREFIX, issue_prefixed
    from app.service.access import AccessService

    token, token_hash = issue_prefixed(AGENT_PREFIX)
    with opened(db, create=True) as service:
        agent = AccessService(service.store).add_agent(name, token_hash)
    if json:
        dump_json({"name": agent.name, "added": agent.added, "token": token})
        return
    echo_err(f"added support agent {agent.name}; its token (shown once):")
    print(token)


@support.command("revoke")
@handles_errors
def revoke(name: NameArgument, db: DbOption = None, json: JsonOption = False) -> None:
    """Revoke a support agent: its token is refused from now on, by every API process."""
    from app.service.access import AccessService

    with opened(db) as service:
        agent = AccessService(service.store).revoke_agent(name)
    if json:
        dump_json({"name": agent.name, "added": agent.added, "revoked": agent.revoked})
        return
    echo_err(f"revoked support agent {agent.name}")


@support.command("list")
@handles_errors
def list_agents(db: DbOption = None, json: JsonOption = False) -> None:
    """List the support agents in the order they were added, revoked ones too (never tokens)."""
    from app.service.access import AccessService

    with opened(db) as service:
        agents = AccessService(service.store).agents()
    rows = [{"name": a.name, "added": a.added, "revoked": a.revoked} for a in agents]
    if json:
        dump_json(rows)
        return
    _table(
        ["NAME", "ADDED", "STATUS"],
        [
            [r["name"], r["added"], f"revoked {r['revoked']}" if r["revoked"] else "active"]
            for r in rows
        ],
    )


@support.command("log")
@handles_errors
def log(
    agent: Annotated[str | None, typer.Option(help="Only this agent's records.")] = None,
    match: Annotated[str | None, typer.Option("--match", help="Only this match's records.")] = None,
    db: DbOption = None,
    json: JsonOption = False,
) -> None:
    """Show what support was shown: when, which agent, which match, what; newest first.

    ``env`` is the agent of the environment's BASRA_SUPPORT_TOKEN.
    """
    from app.service.access import AccessService

    with opened(db) as service:
        records = AccessService(service.store).access_log(agent=agent, match_id=match)
    rows = [
        {
            "at": r.at,
            "agent": r.agent,
            "match_id": r.match_id,
            "what": r.what,
            "request_id": r.request_id,
        }
        for r in records
    ]
    if json:
        dump_json(rows)
        return
    _table(
        ["AT", "AGENT", "MATCH", "WHAT", "REQUEST"],
        [[r["at"], r["agent"], r["match_id"], r["what"], r["request_id"]] for r in rows],
    )


def _table(header: list[str], rows: list[list[str | None]]) -> None:
    """Columns under a header, padded to their widest cell."""
    cells = [header, *([str(c or "") for c in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
