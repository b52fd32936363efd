"""The ``basra`` command line: serve, simulate, matches, replay, export, import, verify."""
