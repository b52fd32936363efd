"""Every read model of one store, opened once and shared by a whole process.

An API process (app.runtime.runtime) and a command line (cli) each hold one ``Projections``: the
lobby, a player's matches, the metrics, profiles and the ladder all read the same open files,
so one process never follows the log twice into the same file. Each file is opened on first use
(a process that never lists anything never creates one).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # sqlite-utils is loaded only when a read model is opened
    from app.readmodels.models import ReadModels
    from app.readmodels.results import Results
    from app.store.match_store import MatchStore


class Projections:
    """The ``matches`` read models and the results of ``store``, each opened on first use."""

    def __init__(self, store: MatchStore, path: Path | None = None) -> None:
        self.store = store
        self.path = path
        """The read models' file (default: app.config.readmodel_path); results go beside it."""
        self._matches: ReadModels | None = None
        self._results: Results | None = None
        self._lock = threading.Lock()

    @property
    def matches(self) -> ReadModels:
        """The ``matches``, ``players`` and ``player_matches`` read models."""
        with self._lock:
            if self._matches is None:
                from app.readmodels.models import ReadModels

                self._matches = ReadModels.for_store(self.store, self.path)
            return self._matches

    @property
    def results(self) -> Results:
        """Profiles, results and the ladder."""
        with self._lock:
            if self._results is None:
                from app.readmodels.results import Results, results_path

                path = None if self.path is None else results_path(self.path)
                self._results = Results.for_store(self.store, path)
            return self._results

    def close(self) -> None:
        """Close the open files (a later use opens them again)."""
        with self._lock:
            opened = [self._matches, self._results]
            self._matches = self._results = None
        for runner in opened:
            if runner is not None:
                runner.close()
