"""Machinery shared across the package: input validation, parallel oracle calls, checkpoints."""
