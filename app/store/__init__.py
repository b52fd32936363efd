"""The event store: match streams, snapshots and the global log (docs/storage.md).

``match_store`` (``MatchStore``, over eventsourcing) with its backends ``sqlite`` and
``postgres``; ``mapper`` (the eventsourcing ``Mapper``) and ``decoding`` (a stored row's form,
without eventsourcing); ``sqlite_reader`` (read-only streams of a SQLite file with sqlite3
alone); ``cache`` (folded states in memory). Nothing is imported here, so the light readers stay
light: import the module you need.
"""
