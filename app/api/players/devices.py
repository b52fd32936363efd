"""Devices of a player: linking another with a one-use code, listing them, revoking one.

Every route but ``POST /players/links`` needs the player's token; a code is shown once, kept
only as its SHA-256 and never logged; a wrong, spent or expired code is one 401
``invalid_link_code`` (docs/api.md, "Devices").
"""

from __future__ import annotations

from litestar import Controller, delete, get, post
from litestar.params import FromPath

from app.api.edges.auth import AnyRequest, authenticate_device
from app.api.edges.bodies import read_body
from app.api.edges.openapi import SEAT_SECURITY, errors, json_body
from app.api.edges.params import Runtime
from app.api.edges.tokens import issue_player_token
from app.api.players.schemas import (
    DeviceEntry,
    DevicesResponse,
    LinkCodeResponse,
    LinkedResponse,
    LinkRequest,
)
from app.service.links import LinkService
from domain.players import PlayerState


def _link(links: LinkService, code: str) -> LinkedResponse:
    """Spend ``code`` for a fresh token of the player it was given to."""
    # The token names its player, so it is made once the code says who; the code is spent
    # first, and the player's stream gets the new device's hash right after.
    spent = links.redeem_player(code)
    issued = issue_player_token(spent)
    linked = links.link_spent(spent, issued.token_hash)
    return LinkedResponse(player_id=spent, token=issued.token, device_id=linked)


def _devices(links: LinkService, player: PlayerState, this_device: str) -> DevicesResponse:
    """The player's devices as their stream lists them, with each one's last use."""
    listed = tuple(
        DeviceEntry(
            device_id=d.device_id,
            made=d.made,
            last_used=links.last_used(player.player_id, d.device_id),
            this_device=d.device_id == this_device,
        )
        for d in player.devices
    )
    return DevicesResponse(player_id=player.player_id, devices=listed)


class DevicesController(Controller):
    """``/players/me/links``, ``/players/links`` and ``/players/me/devices``."""

    path = "/players"
    tags = ("players",)

    @post("/me/links", status_code=201, responses=errors(401, 403), security=SEAT_SECURITY)
    async def issue_code(self, request: AnyRequest, runtime: Runtime) -> LinkCodeResponse:
        """A one-use code (8 symbols, 5 minutes) another device spends for a token of its own."""
        player, device = await authenticate_device(runtime, request.headers.get("authorization"))
        issued = await runtime.call(runtime.links.issue, player, device.device_id)
        return LinkCodeResponse(code=issued.code, expires=issued.expires)

    @post(
        "/links",
        status_code=201,
        responses=errors(400, 401, 409, 413, 422),
        operation_class=json_body(LinkRequest),
    )
    async def link(self, request: AnyRequest, runtime: Runtime) -> LinkedResponse:
        """Spend a linking code: this device gets a token of its own for the same player."""
        data = await read_body(request, LinkRequest)
        return await runtime.call(_link, runtime.links, data.code)

    @get("/me/devices", responses=errors(401), security=SEAT_SECURITY)
    async def devices(self, request: AnyRequest, runtime: Runtime) -> DevicesResponse:
        """Every device holding a token of the player: made when, last used, which is this."""
        player, device = await authenticate_device(runtime, request.headers.get("authorization"))
        return await runtime.call(_devices, runtime.links, player, device.device_id)

    @delete(
        "/me/devices/{device_id:str}",
        status_code=200,
        responses=errors(401, 404, 409),
        security=SEAT_SECURITY,
    )
    async def revoke(
        self, request: AnyRequest, runtime: Runtime, device_id: FromPath[str]
    ) -> DevicesResponse:
        """Revoke another device: its token, and every ticket it asked for, stop working."""
        player, device = await authenticate_device(runtime, request.headers.get("authorization"))
        revoked = await runtime.call(runtime.players.revoke, player, device_id, device.device_id)
        return await runtime.call(_devices, runtime.links, revoked, device.device_id)
