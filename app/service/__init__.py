"""The match service: commands as transactions over the event store (docs/architecture.md).

``match_service`` (``MatchService``: the commands and the reads), ``pipeline`` (the one path
every command runs, and its retry policy), ``outcome`` (what a command returns and observers
see), ``clocks`` (record times), ``turns`` (what a command and the bots' replies decide, before
anything is stored), ``states`` (folded states from the cache,
snapshots and the stream) and ``listeners`` (who hears of each append). The names every caller
uses are importable from here.
"""

from app.service.clocks import utc_now
from app.service.listeners import Listener
from app.service.match_service import MatchService, new_match_id
from app.service.states import SNAPSHOT_EVERY

__all__ = ["SNAPSHOT_EVERY", "Listener", "MatchService", "new_match_id", "utc_now"]
