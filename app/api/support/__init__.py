"""The support desk: reports, cases, the console and actions (docs/support.md)."""
