"""Performance figures and tournaments: `cuarenta bench ...`, `cuarenta tournament ...`."""
