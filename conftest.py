"""Doctest collection: the pygame modules' examples need pygame-ce (the ``demo`` extra)."""

import importlib.util
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # examples and tests never open a window
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

collect_ignore = []
if importlib.util.find_spec("pygame") is None:
    collect_ignore += ["src/broadphase/pygame.py", "src/broadphase/demo.py"]
