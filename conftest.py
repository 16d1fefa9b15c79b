"""Doctest collection: modules whose examples need an optional extra are skipped without it."""

import importlib.util
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # examples and tests never open a window
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

collect_ignore = []
if importlib.util.find_spec("pygame") is None:  # the demo extra
    collect_ignore += ["src/broadphase/pygame.py", "src/broadphase/demo"]
if importlib.util.find_spec("dask") is None:  # the dask extra
    collect_ignore += ["src/broadphase/dask.py"]
if importlib.util.find_spec("geopandas") is None:  # GeoPandas (in the dask extra)
    collect_ignore += ["src/broadphase/_geo.py"]
