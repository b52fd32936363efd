"""Who is asking on a support route: a named agent (its ``agent_`` token, or the console's
session cookie) or the shared ``BASRA_SUPPORT_TOKEN`` (agent ``env``, which reads but never
acts). A player's or a seat's token, or none: 401/403. Every request reads the agent from the
store, so a revoked agent (and every console session it holds) is refused at once, in every
process.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Final

import msgspec

from app.api.edges.auth import AnyRequest
from app.api.edges.errors import MissingTokenError, SupportOnlyError, UnknownTokenError
from app.api.edges.tokens import bearer, hash_token, is_agent_token, new_request_id
from app.errors import AgentRevokedError, ConflictError
from app.runtime.runtime import ApiRuntime
from app.service.desk import acting
from domain.access import ENV_AGENT
from domain.desk import ConsoleSessionEnded, ConsoleSessionOpened
from domain.times import utc_micros, utc_text_us

SESSION_COOKIE: Final = "basra_support"
"""The console's session cookie (HttpOnly, SameSite=Strict, Path=/support)."""

SESSION_PREFIX: Final = "sess_"
SESSION_SECONDS: Final = 8 * 3600
"""How long a console session lasts without signing in again."""


class SupportCaller(msgspec.Struct, frozen=True):
    """An authenticated support caller: the agent's name (``env`` for the shared token)."""

    agent: str
    by_cookie: bool = False

    @property
    def actor(self) -> str:
        """The agent's name when it may act (AgentOnlyError for ``env``)."""
        return acting(self.agent)


async def support_caller(request: AnyRequest, runtime: ApiRuntime) -> SupportCaller:
    """The caller of a support route, by its bearer token or else its console cookie."""
    token = bearer(request.headers.get("authorization"))
    if token is None:
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie:
            return SupportCaller(await _session_agent(runtime, cookie), by_cookie=True)
        raise MissingTokenError("support routes need a support token or a console session")
    support = runtime.settings.support_token
    if support is not None and hmac.compare_digest(token.encode(), support.encode()):
        return SupportCaller(ENV_AGENT)
    if not is_agent_token(token):
        if token.startswith(("player_", "seat_")) or "." in token:
            raise SupportOnlyError("only support may use this route")
        raise UnknownTokenError("the token is not valid")
    return SupportCaller(await _named(runtime, hash_token(token)))


async def _named(runtime: ApiRuntime, token_hash: str) -> str:
    agent = await runtime.call(runtime.access.agent_of, token_hash)
    if agent is None:
        raise UnknownTokenError("the token is not valid")
    if not agent.active:
        raise AgentRevokedError("this support agent was revoked")
    return agent.name


async def _session_agent(runtime: ApiRuntime, cookie: str) -> str:
    """The agent of a live console session (its agent still active, now)."""
    if not cookie.startswith(SESSION_PREFIX) or len(cookie) > 80:
        raise UnknownTokenError("the console session is not valid: sign in again")
    events = await runtime.call(runtime.desk.desk.read, f"session:{hash_token(cookie)}")
    if not events or not isinstance(events[0], ConsoleSessionOpened) or len(events) > 1:
        raise UnknownTokenError("the console session is not valid: sign in again")
    opened = events[0]
    now = runtime.desk.clock()
    if utc_micros(now) >= utc_micros(opened.expires):
        raise UnknownTokenError("the console session expired: sign in again")
    agent = await runtime.call(runtime.access.agent_named, opened.agent)
    if agent is None or not agent.active:
        raise AgentRevokedError("this support agent was revoked")
    return agent.name


async def open_session(runtime: ApiRuntime, token: str) -> str:
    """Exchange a named agent's token for a console session; the session's cookie value."""
    if not is_agent_token(token):
        raise UnknownTokenError("the console signs in a named agent with its agent_ token")
    name = await _named(runtime, hash_token(token))
    cookie = SESSION_PREFIX + secrets.token_urlsafe(32)
    now = runtime.desk.clock()
    expires = utc_text_us(utc_micros(now) + SESSION_SECONDS * 1_000_000)
    opened = ConsoleSessionOpened(name, now, expires)
    await runtime.call(runtime.desk.desk.append, f"session:{hash_token(cookie)}", 0, [opened])
    await record(runtime, SupportCaller(name), "-", "console sign-in")
    return cookie


async def end_session(runtime: ApiRuntime, cookie: str) -> None:
    """Sign the console session out (a second sign-out changes nothing)."""
    stream = f"session:{hash_token(cookie)}"
    try:
        await runtime.call(
            runtime.desk.desk.append, stream, 1, [ConsoleSessionEnded(runtime.desk.clock())]
        )
    except ConflictError:
        return


async def record(runtime: ApiRuntime, who: SupportCaller, target: str, what: str) -> None:
    """The access trail: what ``who`` is about to be shown or do (before it is)."""
    await runtime.call(runtime.access.record_access, who.agent, target, what, new_request_id())
