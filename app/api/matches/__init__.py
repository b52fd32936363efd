"""Matches: creating, listing and reading tables, taking a seat, rematches, replay files."""
