"""How threads_ratio.py, outside_pipeline.py and stage_times.py run what they time:
processes started together, each pinned to a core or not, each timed from its own start to
its own exit; kinds of runs interleaved round after round; what `hrw plan --stage-times`
prints; and the CPU model for the report.

A process is pinned by inheriting this script's core, set just before it starts: a
preexec_fn would rule out vfork and cost every pinned run a full fork of this script (10-15
ms here), charged to the pinned runs only. Each process is timed from its own start: the
second of two is started a few ms after the first, which timing the pair from the first
start to the last exit would count against them.
"""
import os
import re
import time


def run_together(starts):
    """starts: [(argv, core or None, stderr path or None)]. Returns each process's seconds, in
    the order given; raises SystemExit naming the argv of one that failed."""
    everywhere = os.sched_getaffinity(0)
    began = {}
    try:
        for i, (argv, core, stderr) in enumerate(starts):
            if core is not None:
                os.sched_setaffinity(0, {core})
            actions = [(os.POSIX_SPAWN_OPEN, 2, stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)] if stderr else []
            t0 = time.perf_counter()
            began[os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)] = (i, t0)
    finally:
        os.sched_setaffinity(0, everywhere)
    took = [0.0] * len(starts)
    failed = None
    while began:  # each process as it exits: os.wait reaps the first to end
        pid, status = os.wait()
        i, t0 = began.pop(pid)
        took[i] = time.perf_counter() - t0
        if status and failed is None:
            failed = starts[i][0]
    if failed:
        raise SystemExit(f"failed: {' '.join(failed)}")
    return took


def interleaved_rounds(run, kinds, rounds):
    """Runs run(kind) once for every kind (warming the page cache and the outputs), then
    `rounds` rounds of every kind in turn, so that a VM's drifting speed falls on all kinds
    alike. Returns {kind: [run(kind) of each round]}."""
    for kind in kinds:
        run(kind)
    got = {kind: [] for kind in kinds}
    for _ in range(rounds):
        for kind in kinds:
            got[kind].append(run(kind))
    return got


STAGES = ("read", "place", "digest", "consume", "write")


def stage_times_in(path):
    """What `hrw plan --stage-times` wrote to the file at `path`: {stage: thread-ms} for
    STAGES, and "wall": the pipeline's ms."""
    with open(path) as f:
        text = f.read()
    found = {k: float(v) for k, v in re.findall(r"(read|place|digest|consume|write) ([0-9.]+)", text)}
    found["wall"] = float(re.search(r"pipeline wall ([0-9.]+) ms", text).group(1))
    return found


def cpu_model():
    """This machine's CPU model, as /proc/cpuinfo names it."""
    with open("/proc/cpuinfo") as f:
        return f.read().split("model name")[1].split(":")[1].split("\n")[0].strip()
