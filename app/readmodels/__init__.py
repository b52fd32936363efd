"""Cross-match read models in their own SQLite file, folded from the global log (docs/storage.md).

``models`` (``ReadModels``: following the log with sqlite-utils), ``matches`` (the ``matches``
row and how one log entry changes it) and ``reader`` (the same rows read with sqlite3 alone when
nothing is left to fold). Nothing is imported here, so the light reader stays light.
"""
