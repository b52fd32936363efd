"""Events as the tagged union, so a ``match`` over them can be checked for every type."""

from __future__ import annotations

from typing import cast

from domain.events import EVENT_TYPES, AnyEvent, Event


def tagged(event: Event) -> AnyEvent:
    """``event`` typed as one of the known event types; a ``match`` on it must name them all.

    Each dispatch over events in the replay tooling matches on this and ends in
    ``assert_never``, so a new event type is reported by the type checker at every place that
    has to handle it.
    """
    if not isinstance(event, EVENT_TYPES):
        raise TypeError(f"{type(event).__name__} is not an event type of a match stream")
    return cast(AnyEvent, event)
