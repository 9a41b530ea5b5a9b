"""Running ``sichuan`` commands in tests: in process (click's runner) or as a real process."""

from __future__ import annotations

import sys

from click.testing import CliRunner

SICHUAN = [sys.executable, "-m", "simcore.cli"]  # the command as a separate process


def invoke(*args):
    """``sichuan ARGS`` in process; the result, whatever its exit code."""
    from simcore.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


def run_cli(*args, expect=0):
    """``sichuan ARGS`` in process, asserting its exit code."""
    res = invoke(*args)
    assert res.exit_code == expect, (res.output, res.exception)
    return res
