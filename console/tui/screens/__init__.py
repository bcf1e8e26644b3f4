"""One module per screen; every screen shows the session and asks the app to act."""
