"""Runs on a Dask cluster equal local runs, also when a worker dies mid-run."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

import pytest
from click.testing import CliRunner

from simcore.runs import shards as rio
from simcore.cli import main
from simcore.contract.rules import preset
from simcore.runs.runner import DaskExecutor, RunConfig, run

distributed = pytest.importorskip("distributed")  # the dask extra is part of `make setup`

from tests.support.runs import assert_same_content  # noqa: E402

pytestmark = pytest.mark.slow  # every test here takes seconds (see conftest.py)

SEATS = ("greedy+exchange=shortest+void=fewest",) * 2 + ("efficient+exchange=random+void=weakest",) * 2


@pytest.fixture(scope="module")
def cluster():
    cl = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR)
    yield cl
    cl.close()


def test_cluster_run_equals_local_run(cluster, tmp_path):
    args = ["simulate", "-q", "--hands", "9000", "--chunk-hands", "1500", "--seats", ",".join(SEATS), "--seed", "5"]
    res = CliRunner().invoke(main, args + ["--out", str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, args + ["--out", str(tmp_path / "local"), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert_same_content(tmp_path / "dask", tmp_path / "local")
    assert not [f for t in rio.TABLES for f in os.listdir(tmp_path / "dask" / t) if f.startswith(".")]


def test_a_killed_worker_is_retried_and_the_dataset_is_identical(cluster, tmp_path):
    cfg = RunConfig(preset("flow"), SEATS, 11, "hands", 24000, 1000)
    out = tmp_path / "killed"
    ex = DaskExecutor(cluster.scheduler_address)
    pids = list(ex.client.run(os.getpid).values())
    assert len(pids) == 2
    errors = []

    def go():
        try:
            run(out, cfg, executor=ex)
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=go)
    thread.start()
    deadline = time.time() + 120
    while time.time() < deadline and len(rio.complete_chunks(out) if out.exists() else ()) < 3:
        time.sleep(0.05)
    os.kill(pids[0], signal.SIGKILL)  # a worker dies with a chunk in hand; its nanny starts a new one
    thread.join(timeout=600)
    ex.shutdown()
    assert not errors, errors
    m = rio.read_manifest(out)
    assert m["complete"] and len(rio.complete_chunks(out)) == 24
    run(tmp_path / "local", cfg, workers=1)
    assert_same_content(out, tmp_path / "local")


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path):
    res = CliRunner().invoke(main, ["simulate", "--hands", "10", "--out", str(tmp_path / "x"),
                                    "--scheduler", "tcp://127.0.0.1:9"])
    assert res.exit_code == 2 and "cannot reach the Dask scheduler" in res.stderr
