"""Rewrite docs/ARCHITECTURE.md's table of the state's fields from ``simcore.engine.state`` (the
table ``tests/engine/test_state.py`` holds the doc to):

    python scripts/state_table.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from simcore.engine import state_table

DOC = Path(__file__).resolve().parent.parent / "docs" / "ARCHITECTURE.md"
HEAD = "| field | slots | offset | region | in a rollout | what it holds |"


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(HEAD)
    end = text.index("\n\n", start)
    DOC.write_text(text[:start] + state_table() + text[end:], encoding="utf-8")
    print(f"{DOC}: the state table rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
