"""Messages for users: every error a command reports is one line."""

from __future__ import annotations


def one_line(exc: BaseException) -> str:
    """An exception's message folded onto one line (its type's name if it has none)."""
    return " ".join((str(exc).strip() or type(exc).__name__).split())


def did_you_mean(name, known) -> str:
    """``"did you mean 'x'? "`` for the known name closest to a mistyped one (difflib), else ``""``:
    a typo's message then names the fix, not only the list to search."""
    import difflib

    if not isinstance(name, str):
        return ""
    match = difflib.get_close_matches(name, [str(k) for k in known], n=1, cutoff=0.6)
    return f"did you mean {match[0]!r}? " if match else ""
