"""Small widgets, each named for the one thing it shows."""
