"""The HTTP edges: authentication, tokens, limits, logs, metrics, errors, OpenAPI."""
