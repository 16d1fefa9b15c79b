"""``broadphase.dask.find_pairs`` on boxes read from Parquet files, on a LocalCluster.

Usage (the figures of docs/benchmarks.md, "Beyond one machine")::

    python benchmarks/dask_parquet.py --n 10000000 --workers 1 2 --memory-limit 1GiB

Writes the ``uniform`` scene of n boxes to ``--files`` Parquet files (once,
into ``--dir``), then for each worker count starts a ``distributed.LocalCluster``
of that many single-threaded worker processes with ``--memory-limit`` each,
reads the files with ``broadphase.dask.read_parquet`` (``--reader dataframe``:
``dask.dataframe.read_parquet``; ``--reader npy``: the same boxes from ``.npy``
files, so that no worker loads Arrow), runs
``broadphase.dask.find_pairs`` and has every bucket of pairs saved by the
worker that made it (nothing is gathered into one process).  The saved
pairs are then checked equal to ``broadphase.find_pairs`` on all boxes in
this process.  Prints wall time and the peak memory of the workers
(``distributed.diagnostics.MemorySampler``: the peak of their summed process
memory, divided by their number) per run; ``--peaks`` also each worker's own
peak while each kind of task ran, and ``--task-stream`` the seconds each kind
of task spent computing, waiting for transfers and reading spilled data, and
how long after its tile each bucket ``getitem`` started.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import tempfile
import time

import numpy as np

# Nothing heavier at module level: a LocalCluster's worker processes are
# spawned, and each re-imports this script's module-level imports.
# dask.dataframe (with pandas) alone is 48 MiB in a worker that already
# holds Arrow (benchmarks/dask_worker_memory.py), a large share of what a
# tight memory limit leaves for data.


def write(boxes: np.ndarray, folder: str, files: int, row_group: int | None) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    import broadphase.dask as bpd

    os.makedirs(folder, exist_ok=True)
    for k, part in enumerate(np.array_split(boxes, files)):
        table = pa.table({c: part[:, t] for t, c in enumerate(bpd.COLUMNS)})
        pq.write_table(table, os.path.join(folder, f"part-{k:04d}.parquet"),
                       row_group_size=row_group)


def write_npy(boxes: np.ndarray, folder: str, files: int) -> None:
    os.makedirs(folder, exist_ok=True)
    for k, part in enumerate(np.array_split(boxes, files)):
        np.save(os.path.join(folder, f"part-{k:04d}.npy"), part)


def read_npy(folder: str):
    """The boxes of ``write_npy`` as a dask array, one chunk per file."""
    import dask
    import dask.array as da

    files = sorted(f for f in os.listdir(folder) if f.endswith(".npy"))
    rows = [np.load(os.path.join(folder, f), mmap_mode="r").shape[0] for f in files]
    return da.concatenate([da.from_delayed(dask.delayed(np.load)(os.path.join(folder, f)),
                                           shape=(m, 4), dtype=np.float64)
                           for f, m in zip(files, rows, strict=True)])


def stream_report(records) -> None:
    """Seconds per kind of task and action, and the bucket getitems' delay after their tile."""
    from collections import Counter, defaultdict

    spent, count, tile_end, part_start = defaultdict(Counter), Counter(), {}, []
    for rec in records:
        k = _kind(rec["key"])
        count[k] += 1
        for ss in rec["startstops"]:
            spent[k][ss["action"]] += ss["stop"] - ss["start"]
        if k == "bp-tile":
            tile_end[rec["key"][1]] = max(ss["stop"] for ss in rec["startstops"])
        elif k == "bp-part":
            part_start.append((rec["key"][1], min(ss["start"] for ss in rec["startstops"])))
    for k in sorted(spent, key=lambda k: -sum(spent[k].values()))[:8]:
        acts = ", ".join(f"{a} {v:.2f}" for a, v in sorted(spent[k].items()))
        print(f"  {k:24s} {count[k]:6d} tasks: {acts} s")
    if part_start:
        delay = np.percentile([t - tile_end[tile] for tile, t in part_start], [50, 90])
        print(f"  bucket getitems started after their tile: median {delay[0]:.2f} s, "
              f"90% within {delay[1]:.2f} s")


def save(pairs: np.ndarray, path: str) -> int:
    np.save(path, pairs)
    return len(pairs)


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS"))


def _kind(key) -> str:
    """A task's kind: its key's name without the token."""
    return re.sub(r"-[0-9a-f-]{8,}$", "", str(key[0] if isinstance(key, tuple) else key))


def watch_peaks(dask_worker=None) -> None:
    """In a worker: a thread noting the peak RSS while each kind of task runs (every 5 ms)."""
    import threading

    peaks = dask_worker._bp_peaks = {}

    def loop():
        while True:
            r = _rss_mib()
            running = [ts.key for ts in dask_worker.state.executing]
            for key in running or ["idle"]:
                kind = _kind(key)
                peaks[kind] = max(peaks.get(kind, 0.0), r)
            time.sleep(0.005)
    threading.Thread(target=loop, daemon=True).start()


def peaks_of(dask_worker=None) -> dict:
    return {k: round(v) for k, v in sorted(dask_worker._bp_peaks.items(), key=lambda kv: -kv[1])}


def run(folder: str, out: str, workers: int, limit: str, tile_rows: int, reader: str,
        peaks: bool, stream: bool):
    import dask
    from distributed import Client, LocalCluster, get_task_stream
    from distributed.diagnostics import MemorySampler

    import broadphase.dask as bpd

    def dataframe(folder):
        import dask.dataframe as dd

        return dd.read_parquet(folder)

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      memory_limit=limit, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("broadphase").find_pairs(np.zeros((2, 4))))  # load kernels
        if peaks:
            client.run(watch_peaks)
        sampler = MemorySampler()
        t = time.perf_counter()
        with sampler.sample("run", measure="process", interval=0.1), \
                (get_task_stream(client) if stream else contextlib.nullcontext()) as ts:
            boxes = {"dataframe": dataframe, "npy": read_npy,
                     "pyarrow": bpd.read_parquet}[reader](folder)
            lazy = bpd.find_pairs(boxes, tile_rows=tile_rows)
            writes = [dask.delayed(save)(b, os.path.join(out, f"b{k:05d}.npy"))
                      for k, b in enumerate(lazy.to_delayed().ravel())]
            counts = client.compute(writes, sync=True)
        seconds = time.perf_counter() - t
        if peaks:
            for w, p in client.run(peaks_of).items():
                print(f"  peak MiB by task kind, {w}: {p}")
        if stream:
            stream_report(ts.data)
        peak = sampler.to_pandas()["run"].max()
        return seconds, peak / workers, sum(counts)


def main(argv=None):
    import broadphase as bp
    from broadphase import scenarios

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--memory-limit", default="1GiB")
    ap.add_argument("--tile-rows", type=int, default=500_000)
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "broadphase-parquet"))
    ap.add_argument("--row-group", type=int, default=None,
                    help="rows per Parquet row group (chunk) when writing the files")
    ap.add_argument("--reader", choices=["pyarrow", "dataframe", "npy"], default="pyarrow",
                    help="broadphase.dask.read_parquet, dask.dataframe.read_parquet, or .npy "
                         "files of the same boxes (no Arrow in the workers)")
    ap.add_argument("--peaks", action="store_true",
                    help="print each worker's peak memory per kind of task")
    ap.add_argument("--task-stream", action="store_true",
                    help="print where each kind of task spent its time")
    args = ap.parse_args(argv)
    boxes = scenarios.make("uniform", args.n)
    folder = os.path.join(args.dir, f"uniform-{args.n}-{args.files}-{args.row_group or 'all'}")
    if args.reader == "npy":
        folder += "-npy"
        if not os.path.isdir(folder):
            write_npy(boxes, folder, args.files)
    elif not os.path.isdir(folder):
        write(boxes, folder, args.files, args.row_group)
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
    t = time.perf_counter()
    ref = bp.find_pairs(boxes)
    t_one = time.perf_counter() - t
    print(f"{args.n:,} boxes: {boxes.nbytes / 2**20:,.0f} MiB in memory, {size / 2**20:,.0f} MiB "
          f"of {'.npy' if args.reader == 'npy' else 'Parquet'} in {args.files} files; "
          f"{len(ref):,} pairs; find_pairs in this process {t_one:.2f} s")
    for w in args.workers:
        out = os.path.join(args.dir, f"pairs-{w}")
        os.makedirs(out, exist_ok=True)
        for f in os.listdir(out):
            os.remove(os.path.join(out, f))
        seconds, peak, k = run(folder, out, w, args.memory_limit, args.tile_rows, args.reader,
                                args.peaks, args.task_stream)
        got = np.concatenate([np.load(os.path.join(out, f)) for f in sorted(os.listdir(out))])
        if not np.array_equal(got, ref):
            raise AssertionError("broadphase.dask disagrees with find_pairs")
        print(f"  {w} worker(s), {args.memory_limit} each: {seconds:.1f} s, peak worker memory "
              f"{peak / 2**20:,.0f} MiB (process, mean of the workers), {k:,} pairs, equal to "
              f"find_pairs")


if __name__ == "__main__":
    main()
