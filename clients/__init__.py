"""Clients of the table server; ``ClientSession`` is the Python client library they share."""

from clients.session import ClientSession, RequestRefused, SessionError, ws_url

__all__ = ["ClientSession", "RequestRefused", "SessionError", "ws_url"]
