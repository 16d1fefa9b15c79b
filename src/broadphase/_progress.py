"""A progress bar on stderr, shown only on a terminal.

The command line reads and writes millions of rows and runs long
benchmarks; a bar tells the user it is alive.  When stderr is piped or
redirected (scripts, CI, tests) nothing is drawn: no control characters
end up in a log.  ``tqdm`` is used when installed (the ``bench`` extra);
otherwise a one-line bar of our own, so the core install needs nothing.
"""

from __future__ import annotations

import sys
import time


class Progress:
    """Count ``total`` units of work, drawing a bar when ``enabled`` and stderr is a terminal.

    Parameters
    ----------
    total : int
        Units of the whole job.
    desc : str
        What is being done, shown left of the bar.
    enabled : bool
        False draws nothing whatever the terminal (small jobs).
    stream : file, optional
        Where to draw; stderr by default.
    unit : str
        What is counted: ``"rows"``, or ``"B"`` for bytes (shown scaled, kB/s, MB/s).

    Examples
    --------
    >>> import io
    >>> from broadphase._progress import Progress
    >>> out = io.StringIO()  # not a terminal: nothing is drawn
    >>> with Progress(10, "reading", stream=out) as bar:
    ...     bar.update(10)
    >>> out.getvalue(), bar.done
    ('', 10)
    """

    def __init__(self, total: int, desc: str, enabled: bool = True, stream=None,
                 unit: str = "rows") -> None:
        self.total = max(int(total), 1)
        self.desc = desc
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.shown = bool(enabled and isatty())
        self._tqdm = None
        self._last = 0.0
        if self.shown:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self._tqdm = tqdm(total=self.total, desc=desc, file=self.stream, leave=False,
                                  unit=unit, unit_scale=unit == "B", unit_divisor=1024)

    def update(self, k: int = 1) -> None:
        """Count ``k`` more units done."""
        self.done += k
        if not self.shown:
            return
        if self._tqdm is not None:
            self._tqdm.update(k)
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        frac = min(1.0, self.done / self.total)
        bar = "#" * int(30 * frac)
        self.stream.write(f"\r{self.desc} [{bar:<30}] {100 * frac:3.0f}%")
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar."""
        if not self.shown:
            return
        if self._tqdm is not None:
            self._tqdm.close()
            return
        self.stream.write("\r" + " " * (len(self.desc) + 40) + "\r")
        self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
