"""``python -m broadphase``: the ``broadphase`` command (see :mod:`broadphase._cli`)."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
