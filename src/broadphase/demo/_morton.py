"""Seeds 001 and 004: the level-3 grid with its Morton numbers, and a box's cell step by step."""

from __future__ import annotations

import numpy as np

from .. import morton
from ._draw import BLACK, GRID, RED, WHITE, _View


class _Morton:
    """Seeds 001 and 004: the level-3 grid with Morton numbers; a box and its cell."""

    background, free, hit = WHITE, BLACK, RED
    #: This scene's keys (it has no collision to choose a method for, nor objects to add).
    keys = "arrows move the box  click a cell: its Morton number  G cells  S save  Esc quit"
    DEPTH = 3
    SIDE = 512.0

    def __init__(self, n: int):
        self.n = 1
        self.pairs = 0
        self.bounds = (0.0, 0.0, self.SIDE, self.SIDE)
        self.view = _View(self.SIDE, self.SIDE)
        self.box = np.array([150.0, 100.0, 190.0, 140.0])
        self.clicked: tuple[int, int, int] | None = None  # (ix, iy, Morton number)
        self.font = None

    def update(self) -> None:
        pass

    def collide(self, method: str) -> None:
        pass

    def key(self, pg, k) -> None:
        step = {pg.K_LEFT: (-4, 0), pg.K_RIGHT: (4, 0), pg.K_UP: (0, -4), pg.K_DOWN: (0, 4)}
        if k in step:
            dx, dy = step[k]
            moved = self.box + [dx, dy, dx, dy]
            if moved[0] >= 0 and moved[1] >= 0 and moved[2] <= self.SIDE and moved[3] <= self.SIDE:
                self.box = moved

    def click(self, pos) -> None:
        cell = self.SIDE / 2**self.DEPTH * self.view.s
        ix, iy = int((pos[0] - self.view.ox) // cell), int(pos[1] // cell)
        if 0 <= ix < 2**self.DEPTH and 0 <= iy < 2**self.DEPTH:
            self.clicked = (ix, iy, int(morton.encode(ix, iy)))

    def explain(self) -> dict:
        """The seeds' steps for the box: corner codes, XOR, shift, level, cell, linear index."""
        cell = self.SIDE / 2**self.DEPTH
        top = 2**self.DEPTH - 1
        x0, y0, x1, y1 = self.box
        c0 = int(morton.encode(min(int(x0 // cell), top), min(int(y0 // cell), top)))
        c1 = int(morton.encode(min(int(x1 // cell), top), min(int(y1 // cell), top)))
        lv, idx = morton.locate(self.box, self.bounds, self.DEPTH)
        level, index = int(lv[0]), int(idx[0])
        return {"corners": (c0, c1), "xor": c0 ^ c1, "shift": 2 * (self.DEPTH - level),
                "level": level, "cell": index, "linear": int(morton.linear_index(level, index))}

    def draw(self, pg, surf) -> None:
        font = self.font or pg.font.Font(None, 22)
        self.font = font
        s = self.view.s
        cell = self.SIDE / 2**self.DEPTH
        e = self.explain()
        side = self.SIDE / 2 ** e["level"]
        hx, hy = morton.decode(e["cell"])
        pg.draw.rect(surf, (255, 230, 150), (*self.view.point(hx * side, hy * side),
                                             int(side * s), int(side * s)))
        for iy in range(2**self.DEPTH):
            for ix in range(2**self.DEPTH):
                r = (*self.view.point(ix * cell, iy * cell), int(cell * s), int(cell * s))
                if self.clicked and self.clicked[:2] == (ix, iy):
                    pg.draw.rect(surf, (190, 220, 255), r)
                pg.draw.rect(surf, GRID, r, 1)
                surf.blit(self._label(font, int(morton.encode(ix, iy))), (r[0] + 4, r[1] + 4))
        b = (self.box * s).astype(int)
        pg.draw.rect(surf, RED, (b[0] + self.view.ox, b[1], b[2] - b[0], b[3] - b[1]), 2)

    def _label(self, font, number: int):
        """The rendered Morton number (rendered once: 64 renders a frame cost 30 ms)."""
        labels = self.__dict__.setdefault("labels", {})
        if number not in labels:
            labels[number] = font.render(str(number), True, (90, 90, 90))
        return labels[number]

    def cells(self):
        return morton.locate(self.box, self.bounds, self.DEPTH)

    def info(self) -> str:
        e = self.explain()
        c0, c1 = e["corners"]
        text = (f"corners {c0} ({c0:06b}) {c1} ({c1:06b})  xor {e['xor']:06b}  shift "
                f"{e['shift']}  level {e['level']}  cell {e['cell']}  linear {e['linear']}")
        if self.clicked:
            ix, iy, code = self.clicked
            text += f"   clicked ({ix}, {iy}) = {code}"
        return text
