"""The wire bot: an ``engine.bots`` level seated over the WebSocket like any person."""
