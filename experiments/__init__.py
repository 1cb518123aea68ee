"""Runnable scripts that reproduce results: ``python -m experiments.<name>``."""
