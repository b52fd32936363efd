"""The HTTP API (docs/api.md): Litestar over the match service."""
