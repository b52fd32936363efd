"""Replay tooling over a sequence of recorded events: positions, rendering, files, audits."""
