"""Memory held by many Python threads searching at once, during and after.

Usage (the figures of docs/benchmarks.md, "Memory")::

    python benchmarks/threads_memory.py --threads 8 --n 1000000

Starts ``--threads`` Python threads that each call ``find_pairs`` on the same
``n`` uniform boxes ``--calls`` times, samples the process's resident memory
(``/proc/self/status``, Linux) every 10 ms, and prints the baseline after the
input is built, the peak while the threads run, and the resident memory once
they are done (what the scratch pool keeps for later calls).
"""

from __future__ import annotations

import argparse
import threading
import time

import broadphase as bp
from broadphase import scenarios


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--calls", type=int, default=5)
    args = ap.parse_args(argv)
    boxes = scenarios.make("uniform", args.n)
    base = rss_mib()
    peak = [base]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mib())
            time.sleep(0.01)

    def work():
        for _ in range(args.calls):
            bp.find_pairs(boxes)

    sampler = threading.Thread(target=sample)
    sampler.start()
    t = time.perf_counter()
    workers = [threading.Thread(target=work) for _ in range(args.threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall = time.perf_counter() - t
    done.set()
    sampler.join()
    after = rss_mib()
    print(f"{args.threads} threads x {args.calls} calls at n = {args.n:,}: {wall:.1f} s; "
          f"resident MiB: {base:.0f} with the input, peak {peak[0]:.0f}, after {after:.0f}")


if __name__ == "__main__":
    main()
