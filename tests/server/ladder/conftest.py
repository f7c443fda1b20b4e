"""The browser tests of the ladder use the web client's fixtures: the served client, chromium."""

from tests.web.conftest import artifacts, browser, playwright, web_url

__all__ = ["artifacts", "browser", "playwright", "web_url"]
