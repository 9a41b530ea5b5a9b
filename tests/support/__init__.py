"""Helpers and independent oracles that several test files share."""
