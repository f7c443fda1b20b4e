"""The terminal client: ``cuarenta play``/``watch`` (a textual table) and ``cuarenta new``."""
