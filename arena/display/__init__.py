"""Showing a position or a game: text for the terminal and the HTML replay page."""
