"""The route handlers, one controller per area."""
