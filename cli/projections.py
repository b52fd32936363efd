"""The command line's read models: one ``Projections`` per command, and catching them up.

Every command that lists from the read models (``matches``, ``ladder``, ``player``,
``projections``, ``restore``) opens them once through ``projections_of`` and closes them at its
end; ``caught_up`` brings one up to the log (or rebuilds it) with a progress bar on stderr when
it is far behind.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from app.readmodels.projections import Projections
    from app.readmodels.runner import ProjectionRunner
    from app.service import MatchService

BEHIND_FOR_PROGRESS: Final = 20_000
"""Show a progress bar when a read model is this many log entries behind."""

LOG_LABEL: Final = "reading the log"
"""The progress bar's label while the ``matches`` read models follow the log."""

RESULTS_LABEL: Final = "reading the results"
"""The progress bar's label while the results follow the log."""


@contextmanager
def projections_of(service: MatchService) -> Iterator[Projections]:
    """The read models of ``service``'s store, closed when the block ends."""
    from app.readmodels.projections import Projections

    projections = Projections(service.store)
    try:
        yield projections
    finally:
        projections.close()


def caught_up(runner: ProjectionRunner, *, label: str, rebuild: bool = False) -> int:
    """Bring ``runner`` up to the log (or rebuild it): how many entries it applied."""
    total = runner.store.max_position()
    start = 0 if rebuild else min(runner.position(), total)
    if total - start < BEHIND_FOR_PROGRESS:
        return runner.rebuild() if rebuild else runner.catch_up()
    import typer  # only a long catch-up draws a bar

    with typer.progressbar(length=total - start, label=label, file=sys.stderr) as bar:
        done = [start]

        def advance(position: int, _last: int) -> None:
            bar.update(max(0, position - done[0]))
            done[0] = position

        return runner.rebuild(progress=advance) if rebuild else runner.catch_up(progress=advance)
