"""hrw.dask.place_files and plan_files on a scheduler and two workers started as separate OS
processes with Debian's `dask scheduler` / `dask worker` commands, over TCP on 127.0.0.1,
started and stopped (by PID) here. A module of its own: one cluster per module is the
default scheduler at a time."""
import os
import signal
import subprocess
import time

import pytest

from test_dask_files import data, place_equals_cli, plan_equals_cli  # noqa: F401 (a fixture)


# ---- a scheduler and two workers as OS processes, over TCP on 127.0.0.1 ----

@pytest.fixture(scope="module")
def process_cluster(tmp_path_factory):
    """`dask scheduler` and two `dask worker` processes of Debian's python3-distributed,
    started here and stopped by PID; each step bounded in time."""
    from distributed import Client
    tmp = tmp_path_factory.mktemp("cluster")
    scheduler_file = tmp / "scheduler.json"
    dask_cli = "/usr/bin/dask"
    common = dict(stdout=open(tmp / "log.txt", "ab"), stderr=subprocess.STDOUT, start_new_session=True)
    procs = [subprocess.Popen([dask_cli, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(scheduler_file)], **common)]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or not scheduler_file.read_bytes().strip():
            assert procs[0].poll() is None, (tmp / "log.txt").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start within 60 s"
            time.sleep(0.1)
        for w in range(2):
            procs.append(subprocess.Popen([dask_cli, "worker", "--scheduler-file", str(scheduler_file),
                                           "--nthreads", "1", "--nworkers", "1", "--no-dashboard",
                                           "--name", f"worker-{w}", "--local-directory", str(tmp / f"w{w}"),
                                           "--host", "127.0.0.1"], **common))
        with Client(scheduler_file=str(scheduler_file), timeout=60) as c:
            c.wait_for_workers(2, timeout=60)
            address = c.scheduler.address
            assert address.startswith("tcp://127.0.0.1:"), address
            workers = c.scheduler_info()["workers"]
            assert len(workers) == 2 and all(w.startswith("tcp://127.0.0.1:") for w in workers)
            yield c
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=10)


@pytest.mark.parametrize("kind", ["lines", "csv"])
def test_files_equal_the_cli_on_scheduler_and_worker_processes(process_cluster, data, tmp_path, kind):
    files, everything = (data["lines"], data["tmp"] / "all.txt") if kind == "lines" else \
        (data["csvs"], data["tmp"] / "all.csv")
    plan_equals_cli(data, files, everything, tmp_path / "plan", 700)
    place_equals_cli(data, files, everything, tmp_path / "place", 700)
    # Two worker processes, neither of them this one, and both ran tasks.
    pids = process_cluster.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
    executed = process_cluster.run(lambda dask_worker: dask_worker.executed_count)
    assert all(n > 0 for n in executed.values()), executed
