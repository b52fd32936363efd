"""``GET`` and ``POST /matches/{id}/verification``: ``basra verify`` over HTTP."""

from __future__ import annotations

from litestar import Controller, get, post

from app.api.edges.auth import AnyRequest, Principal, record_support_access
from app.api.edges.bodies import read_body
from app.api.edges.callers import OptionalCaller
from app.api.edges.openapi import OPTIONAL_SECURITY, errors, json_body
from app.api.edges.params import MatchIdPath, Runtime
from app.api.verification.ops import ReceiptBody, VerificationRequest, verification
from replays.verification import Verification


async def _answer(
    runtime: Runtime, who: Principal | None, match_id: str, receipts: list[ReceiptBody] | None
) -> Verification:
    """The verification, support's access recorded once it is ready and before it is sent."""
    support = None if who is None else who.is_support
    result = await runtime.offload(verification, runtime.service, match_id, support, receipts)
    if who is not None and who.is_support:
        await record_support_access(runtime, who, "verification")
    return result


class VerificationController(Controller):
    """The chain, the receipts and the rules of a stored match: anyone after the end, support
    before it."""

    path = "/matches/{match_id:str}/verification"
    tags = ("replays",)
    security = OPTIONAL_SECURITY

    @get("/", responses=errors(401, 403, 404))
    async def verify(
        self, runtime: Runtime, match_id: MatchIdPath, optional_caller: OptionalCaller
    ) -> Verification:
        """What ``basra verify`` says: ``ok``, ``chain`` and the first ``divergence`` if any."""
        return await _answer(runtime, optional_caller, match_id, None)

    @post(
        "/",
        status_code=200,
        responses=errors(400, 401, 403, 404, 413, 422),
        operation_class=json_body(VerificationRequest),
    )
    async def verify_receipts(
        self,
        request: AnyRequest,
        runtime: Runtime,
        match_id: MatchIdPath,
        optional_caller: OptionalCaller,
    ) -> Verification:
        """The same, checking the receipts a client kept: a ``receipt`` divergence names the
        first one the stored stream contradicts."""
        body = await read_body(request, VerificationRequest)
        return await _answer(runtime, optional_caller, match_id, body.receipts)
