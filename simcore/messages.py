"""Messages for users: every error a command reports is one line."""

from __future__ import annotations


def one_line(exc: BaseException) -> str:
    """An exception's message folded onto one line (its type's name if it has none)."""
    return " ".join((str(exc).strip() or type(exc).__name__).split())
