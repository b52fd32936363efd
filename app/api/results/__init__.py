"""Results: a player's profile, matches and ratings, and the ladder."""
