"""Shared test configuration: fixtures live in plugin modules named for what they start."""

pytest_plugins = ["tests.redis_server", "tests.serving"]
