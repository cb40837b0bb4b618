"""The targets API from Python: the lists, forcing by name, the scoped form, and HRW_TARGET
read by the library itself (the module never reads the environment)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import hrw


def test_lists_and_forcing_by_name():
    compiled = hrw.compiled_targets()
    runnable = hrw.runnable_targets()
    assert runnable and set(runnable) <= set(compiled)
    assert hrw.active_target() == runnable[0]
    keys = [f"user:{i}".encode() for i in range(5000)]
    view = hrw.ClusterView.from_ids([f"node-{i}" for i in range(13)])
    base = hrw.place(view, keys)
    try:
        for name in runnable:
            assert hrw.force_target(name.lower()) == name  # any case
            assert hrw.active_target() == name
            assert np.array_equal(hrw.place(view, keys), base)
    finally:
        hrw.force_target("auto")
    assert hrw.active_target() == runnable[0]


def test_scoped_target_restores_what_was_forced():
    runnable = hrw.runnable_targets()
    with hrw.target(runnable[-1]) as outer:
        assert outer == runnable[-1]
        with hrw.target(runnable[0]):
            assert hrw.active_target() == runnable[0]
        assert hrw.active_target() == runnable[-1]
    assert hrw.active_target() == runnable[0]


def test_bad_names_are_value_errors_listing_the_valid_ones():
    with pytest.raises(ValueError, match=r'unknown SIMD target "AVX9" \(compiled in: '):
        hrw.force_target("AVX9")
    assert hrw.active_target() == hrw.runnable_targets()[0]


def _run(code, target):
    env = dict(os.environ, HRW_TARGET=target)
    return subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          env=env)


def test_hrw_target_is_read_by_the_library():
    runnable = hrw.runnable_targets()
    last = runnable[-1]
    p = _run("import hrw; print(hrw.active_target())", last.lower())
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == last
    # A placement applies it too, and an explicit force wins over it.
    p = _run("import hrw; v = hrw.ClusterView.from_ids(['a', 'b']); hrw.place(v, [b'k']);"
             f" print(hrw.active_target()); print(hrw.force_target('{runnable[0]}'))", last)
    assert p.stdout.split() == [last, runnable[0]], p.stderr


def test_bad_hrw_target_refuses_placements():
    p = _run("import hrw\nv = hrw.ClusterView.from_ids(['a', 'b'])\n"
             "try:\n    hrw.place(v, [b'k'])\nexcept ValueError as e:\n    print(e)\n", "bogus")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith('HRW_TARGET: unknown SIMD target "bogus" (compiled in: ')
