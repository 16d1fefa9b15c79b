"""What one Dask worker process holds before it holds any data, step by step.

Usage (the figures of docs/benchmarks.md, "Beyond one machine"; run it in a
virtual environment with only ``pip install -e ".[dask]"``, so that no
optional package a test or benchmark brings is counted)::

    python benchmarks/dask_worker_memory.py

Starts a ``distributed.LocalCluster`` of one worker process and prints its
resident memory (MiB) when it starts, after importing broadphase's worker
tasks, after the first search, after what ends every task (the core's
scratch freed, ``malloc_trim``), after reading one Parquet row
group, after a search of a tile of 100,000 boxes (the peak during it,
sampled every 2 ms, and after), and after importing ``dask.dataframe`` (with
pandas), which a worker of a ``LocalCluster`` does when the script that
started it imports it at module level.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time

import numpy as np
from distributed import Client, LocalCluster


def rss() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS"))


def import_tasks() -> float:
    from broadphase import _dask_tasks  # noqa: F401

    return rss()


def first_kernel() -> float:
    import broadphase

    broadphase.find_pairs(np.zeros((2, 4)))
    return rss()


def end_of_task() -> float:
    from broadphase import _dask_tasks

    _dask_tasks._release()  # what the end of every task does
    return rss()


def read_one(path: str) -> float:
    from broadphase import _dask_tasks

    a = _dask_tasks.read_row_group(path, 0, ["minx", "miny", "maxx", "maxy"],
                                   np.dtype(np.float64), (100_000, 4))
    del a
    return rss()


def tile(n: int) -> tuple[float, float]:
    from broadphase import _dask_tasks

    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 1000 * (n / 200_000) ** 0.5, (n, 2))
    b = np.hstack([xy, xy + 2.2])
    inf = np.array([-np.inf, np.inf])
    peak, stop = [rss()], [False]

    def watch():
        while not stop[0]:
            peak[0] = max(peak[0], rss())
            time.sleep(0.002)

    th = threading.Thread(target=watch)
    th.start()
    _dask_tasks.tile_pairs([(np.arange(n), b, [None] * 3)], t=0,
                           tiling=(inf, np.array([inf]), np.array([0])),
                           edges=np.array([0, n]), given=[False] * 3, scalars=(None,) * 3)
    stop[0] = True
    th.join()
    return peak[0], rss()


def import_dataframe() -> float:
    import dask.dataframe  # noqa: F401 (what a script's module-level import brings to a worker)

    return rss()


def main() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "boxes.parquet")
        xy = np.random.default_rng(1).uniform(0, 1000, (100_000, 2))
        pq.write_table(pa.table({"minx": xy[:, 0], "miny": xy[:, 1], "maxx": xy[:, 0] + 2,
                                 "maxy": xy[:, 1] + 2}), path)
        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                          memory_limit="2GiB", dashboard_address=None) as cluster, \
                Client(cluster) as client:
            def one(f, *args):
                return next(iter(client.run(f, *args).values()))

            print(f"worker started                 {one(rss):6.0f} MiB")
            print(f"broadphase's tasks imported    {one(import_tasks):6.0f} MiB")
            print(f"first search made              {one(first_kernel):6.0f} MiB")
            print(f"end of a task                  {one(end_of_task):6.0f} MiB")
            print(f"one Parquet row group read     {one(read_one, path):6.0f} MiB")
            peak, after = one(tile, 100_000)
            print(f"tile of 100,000 boxes searched {after:6.0f} MiB (peak {peak:.0f})")
            print(f"dask.dataframe imported        {one(import_dataframe):6.0f} MiB")


if __name__ == "__main__":
    main()
