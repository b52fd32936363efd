"""Cross-match read models in their own SQLite files, folded from the global log (docs/storage.md).

``runner`` (the ``Projection`` protocol and the one ``ProjectionRunner`` that keeps each file up
to the log with sqlite-utils), ``models`` (``ReadModels``: the ``matches`` and players tables),
``results`` (``Results``: profiles, histories and the ladder), ``projections`` (one
``Projections`` per process holding both), ``cursors`` (the page cursors), ``matches`` and
``players`` (the rows and how one log entry changes them) and ``reader`` (the ``matches`` rows
read with sqlite3 alone when nothing is left to fold). Nothing is imported here, so the light
reader stays light.
"""
