"""Server test fixtures (filled by the server package's tests)."""
