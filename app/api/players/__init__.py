"""Players: registering, the player's record, token rotation, names, the player's matches."""
