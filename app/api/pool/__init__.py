"""The rated pool: ``POST /pool``, ``GET /pool/me``, ``DELETE /pool/me``."""
