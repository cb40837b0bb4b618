"""hrw.dask over key files: place_files and plan_files read the files on the workers with
hrw's own C++ reader (the CLI's), in byte ranges, and write the parts of one published
folder. Nothing goes through pandas. docs/python.md, "hrw.dask over files".

    stats = hrw.dask.place_files("keys/*.txt", view, out="DIR")
    summary = hrw.dask.plan_files("keys/*.csv", view_a, view_b, out="DIR")

The result equals the CLI's on the files' records in order (`hrw place` / `hrw plan` on one
file holding every record of the files, in the order given: for lines, their `cat` when
each ends with LF; for CSV, one header and every file's rows).
"""
import functools
import glob
import json
import os

import dask
import numpy as np
from dask.utils import parse_bytes

from . import _column_list, _hrw
from ._dask_shared import (_check_bytes_for, _check_view, _cli_plan_folder, _concat_keys, _first_rows,
                           _plan_part_path, _publish, _publish_all_moves, _refuse_staged, _schedule, _shipped,
                           _warn_incompatible, _write_file)

__all__ = ["place_files", "plan_files"]

DEFAULT_BLOCKSIZE = 64 * 2**20  # bytes per range, as dask.dataframe.read_csv's order of size


class _Failed:
    """A task's error, returned instead of raised, so that the error the caller sees is the
    first in input order (as the CLI's), not the first a worker happened to finish."""

    def __init__(self, error):
        self.error = error


def _guarded(function):
    @functools.wraps(function)  # pickled by reference: workers import this module
    def run(*args, **kwargs):
        for a in args:
            if isinstance(a, _Failed):
                return a
        try:
            return function(*args, **kwargs)
        except (ValueError, OSError) as e:
            return _Failed(e)
    return run


def _first_failure(results):
    for r in results:
        if isinstance(r, _Failed):
            raise r.error


def _file_list(paths):
    """The files, in order: a list of paths, or one path or glob pattern (sorted matches)."""
    if isinstance(paths, (str, os.PathLike)):
        pattern = os.fspath(paths)
        found = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
        if not found:
            raise ValueError(f"paths: no file matches {pattern!r}")
    else:
        found = [os.fspath(p) for p in paths]
        if not found:
            raise ValueError("paths: no files given")
    for path in found:
        try:
            os.stat(path)
        except OSError as e:
            raise ValueError(f"{path}: cannot open: {e.strerror}") from None
        if not os.path.isfile(path):
            raise ValueError(f"{path}: not a regular file (byte ranges need one)")
    return found


def _format_of(files, keys_format):
    """One format for every file: keys_format, else each name's (as the CLI decides)."""
    if keys_format is not None:
        if keys_format not in ("lines", "csv"):
            raise ValueError(f"keys_format: unknown format {keys_format!r} (expected lines or csv)")
        return keys_format
    formats = {path: _hrw._key_format_for(path) for path in files}
    if len(set(formats.values())) > 1:
        lines = next(p for p, f in formats.items() if f == "lines")
        csv = next(p for p, f in formats.items() if f == "csv")
        raise ValueError(f"paths: {lines} is read as lines and {csv} as csv: give files of one "
                         "format, or keys_format")
    return next(iter(formats.values()))


def _blocksize(blocksize):
    if blocksize is None:
        return None
    size = parse_bytes(blocksize) if isinstance(blocksize, str) else blocksize
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"blocksize must be a positive number of bytes or None, got {blocksize!r}")
    return size


@_guarded
def _count_quotes(path, begin, end):
    return _hrw._count_quotes(path, begin, end)


def _prefix_ranges(cuts, counts):
    """(begin, end, quotes before begin, quotes before end) for each piece of one file."""
    failed = [c for c in counts if isinstance(c, _Failed)]
    if failed:
        return [failed[0]] * len(cuts)
    out, before = [], 0
    for (begin, end), n in zip(cuts, counts):
        out.append((begin, end, before, before + n))
        before += n
    return out


def _ranges(files, fmt, blocksize):
    """[(path, range)] in input order; range None reads the whole file (as the CLI does), a
    tuple is a ByteRange. CSV quote counts come from tasks, one per piece of a split file."""
    out = []
    for path in files:
        size = os.path.getsize(path)
        # A compressed file's bytes are not its text's: one task reads it whole.
        if blocksize is None or size <= blocksize or _hrw._compression(path) is not None:
            out.append((path, None))
            continue
        # As many ranges as blocksize asks for, of equal size (no small last range).
        pieces = -(-size // blocksize)
        cuts = [(size * i // pieces, size * (i + 1) // pieces) for i in range(pieces)]
        if fmt == "lines":
            out.extend((path, (b, e, 0, 0)) for b, e in cuts)
            continue
        counts = [dask.delayed(_count_quotes, pure=True)(path, b, e) for b, e in cuts]
        pieces = dask.delayed(_prefix_ranges, pure=True)(cuts, counts)
        out.extend((path, pieces[i]) for i in range(len(cuts)))
    return out


# ---- place_files ----

@_guarded
def _place_task(view, path, out, fmt, byte_range, o):
    stats, has_bytes, has_requests = _hrw._place_range(
        view, path, out, keys_format=fmt, range=byte_range, replicas=o["replicas"],
        distinct=o["distinct"], partial=o["partial"], threads=o["threads"], ignore_columns=o["ignore_columns"])
    return stats, has_bytes, has_requests


def _same_columns(parts, paths, kind):
    """Every part has the load columns of the first (CSV files with other columns differ)."""
    first = parts[0][1:]
    for part, path in zip(parts, paths):
        if part[1:] != first:
            have = lambda c: " and ".join(n for n, x in zip(("bytes", "requests"), c) if x) or "no"
            raise ValueError(f"{path}: has {have(part[1:])} load columns, {paths[0]} has {have(first)}: "
                             f"the files of one {kind} must have the same columns")


def _merge_place(view, o, parts, paths):
    _first_failure(parts)
    _same_columns(parts, paths, "placement")
    return _hrw._merge_place_stats(view, o["replicas"], [p[0] for p in parts],
                                   bytes=parts[0][1], requests=parts[0][2])


def place_files(paths, view, out, *, keys_format=None, blocksize=DEFAULT_BLOCKSIZE, replicas=None,
                distinct=None, partial=False, threads=1, ignore_columns=()):
    """Places every key of the files on the workers: out/place-NNNNN.csv for range NNNNN
    (each with `hrw place`'s header; their rows in order are `hrw place`'s rows) and
    out/stats.json (`hrw place --stats`'s), published as one unit. Returns the stats.
    `ignore_columns`: CSV header columns to skip (any other unknown column is refused)."""
    _check_view(view, "view")
    r = _hrw._resolve_request(view, replicas=replicas, distinct=distinct, partial=partial)
    o = dict(replicas=r["replicas"], distinct=r["distinct"], partial=r["partial"], threads=threads,
             ignore_columns=_column_list(ignore_columns))
    files = _file_list(paths)
    fmt = _format_of(files, keys_format)
    ranges = _ranges(files, fmt, _blocksize(blocksize))
    if not out:
        raise ValueError("out: give the output folder")
    _hrw._check_outputs([("out", os.fspath(out), True)], [("paths", f) for f in files])
    folder = _hrw._PlanFolder(os.fspath(out))  # locked; refuses a folder that is not hrw's
    v = _shipped(view)

    def graph(build):
        parts = [dask.delayed(_place_task, pure=False)(v, path, os.path.join(build, f"place-{i:05d}.csv"),
                                                       fmt, rng, o)
                 for i, (path, rng) in enumerate(ranges)]
        return dask.delayed(_merge_place)(v, o, parts, [p for p, _ in ranges])
    return _publish(folder, "stats.json", graph)


# ---- plan_files: the moves of each range, then their rows from each range's first row ----

@_guarded
def _plan_task(view_a, view_b, path, fmt, byte_range, o):
    part = _hrw._plan_range(view_a, view_b, path, keys_format=fmt, range=byte_range, replicas=o["replicas"],
                            distinct=o["distinct"], partial=o["partial"], threads=o["threads"],
                            batch_size=o["batch_size"], moved_keys=o["moved_keys"],
                            ignore_columns=o["ignore_columns"], allow_single_copy=o["allow_single_copy"])
    summary = json.loads(part["summary"])
    return part["summary"], "bytes" in summary, "requests" in summary, part


def _checked_parts(parts, paths):
    _first_failure(parts)
    _same_columns([p[:3] for p in parts], paths, "plan")
    return parts


def _first_rows_of(parts, paths):
    return _first_rows([p[0] for p in _checked_parts(parts, paths)])


def _write_moves(part, first_rows, index, path, o):
    rows = part[3]
    numbered = _hrw._number_move_rows(rows["rows"], rows["row_starts"], first_rows[index], o["batch_size"])
    _write_file(path, rows["header"] + numbered)
    return path


def _merge_plan(view_a, view_b, o, parts, written, build):
    summary = _hrw._merge_summaries(view_a, view_b, o["replicas"], o["batch_size"], [p[0] for p in parts],
                                    distinct=o["distinct"], partial=o["partial"],
                                    allow_single_copy=o["allow_single_copy"])
    return _cli_plan_folder(build, view_a, view_b, written, summary)


def plan_files(paths, view_a, view_b, out, *, keys_format=None, blocksize=DEFAULT_BLOCKSIZE,
               batch_size=1000, replicas=None, distinct=None, partial=False, threads=1,
               max_moves_per_node=None, max_bytes_per_node=None, max_moved_fraction=None, cap_by=None,
               node_bandwidth=None, transitions=False, svg=None, ignore_columns=(), allow_single_copy=False,
               step_versions=None):
    """The migration plan of the files' keys, range by range on the workers, as the CLI's plan
    folder: out/moves.csv (each range's rows written on its worker, then joined in order),
    out/summary.json, out/from.json and out/to.json, published as one unit, byte for byte
    `hrw plan`'s on the files' records in order. Returns the summary. With rounds,
    transitions or svg, the moved keys of every range come back to the client, which writes
    the CLI's folder over them (as hrw.dask.plan does); staged plans are a ValueError.
    `ignore_columns`: CSV header columns to skip (any other unknown column is refused)."""
    _refuse_staged("hrw.dask.plan_files", max_moved_fraction, cap_by, step_versions)
    schedule = _schedule(batch_size, max_moves_per_node=max_moves_per_node, max_bytes_per_node=max_bytes_per_node,
                         node_bandwidth=node_bandwidth, transitions=transitions, svg=svg)
    _check_view(view_a, "view_a")
    _check_view(view_b, "view_b")
    # Refused now if bad; each view then places by its own rule (contract §8).
    _hrw._resolve_request(view_a, view_b, replicas=replicas, distinct=distinct, partial=partial,
                          allow_single_copy=allow_single_copy)
    o = dict(replicas=replicas, distinct=distinct, partial=partial, threads=threads, batch_size=batch_size,
             moved_keys=schedule is not None, ignore_columns=_column_list(ignore_columns),
             allow_single_copy=allow_single_copy)
    _hrw._plan_part(view_a, view_b, [], replicas=replicas, distinct=distinct, partial=partial,
                    batch_size=batch_size, allow_single_copy=allow_single_copy)  # refuse a bad request or batch size now
    files = _file_list(paths)
    fmt = _format_of(files, keys_format)
    ranges = _ranges(files, fmt, _blocksize(blocksize))
    if not out:
        raise ValueError("out: give the output folder")
    if fmt == "lines":  # (a CSV file's columns are known once it is read)
        _check_bytes_for(schedule, False, "a lines file")
    _hrw._check_outputs([("out", os.fspath(out), True)] + ([("svg", os.fspath(svg), False)] if svg else []),
                        [("paths", f) for f in files])
    _warn_incompatible(view_a, view_b)
    folder = _hrw._PlanFolder(os.fspath(out))
    va, vb = _shipped(view_a), _shipped(view_b)
    parts = [dask.delayed(_plan_task, pure=False)(va, vb, path, fmt, rng, o) for path, rng in ranges]
    if schedule:
        folder.close()  # checked now; _plan_folder locks and publishes it at the end
        results = dask.delayed(_checked_parts)(parts, [p for p, _ in ranges]).compute()
        moved = [r[3] for r in results]
        keys = _concat_keys([m["moved"] for m in moved])
        has = dict(bytes=results[0][1], requests=results[0][2])
        loads = {n: np.concatenate([m[n] for m in moved]) for n in ("bytes", "requests") if has[n]}
        return _publish_all_moves(view_a, view_b, o, schedule, out, [r[0] for r in results], keys, loads)
    first_rows = dask.delayed(_first_rows_of)(parts, [p for p, _ in ranges])

    def graph(build):
        written = [dask.delayed(_write_moves)(part, first_rows, i, _plan_part_path(build, i), o)
                   for i, part in enumerate(parts)]
        return dask.delayed(_merge_plan)(va, vb, o, parts, written, build)
    return _publish(folder, "summary.json", graph)
