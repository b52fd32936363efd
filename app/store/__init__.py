"""The event store: match streams, snapshots and the global log (docs/storage.md).

``match_store`` (``MatchStore``, over eventsourcing, the same code on every store) and
``backend`` (``Backend``: what differs, one class each in ``memory``, ``sqlite`` and
``postgres``); ``compact`` and ``decoding`` (a stored row's one form, without eventsourcing);
``mapper`` (rows in and out of eventsourcing); ``migration`` (``basra store migrate``, with
``earlier``: the forms of earlier builds); ``sqlite_reader`` (read-only streams of a SQLite
file with sqlite3 alone); ``cache`` (folded states in memory). Nothing is imported here, so the
light readers stay light: import the module you need.
"""
