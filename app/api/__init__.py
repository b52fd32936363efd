"""The HTTP API (CONTRACT §3): Litestar over the match service."""
