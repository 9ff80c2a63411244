"""The batch simulator: many games in one compiled loop, with scripted and learned seats."""
