"""Live events: the server-sent feed of a match and the tickets that open it."""
