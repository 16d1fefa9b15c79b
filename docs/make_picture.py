"""Draw seed 000's scene with the pairs broadphase finds: docs/scene.png.

1000 boxes of 10 x 10 in a 500 x 500 world; a box is red when it collides
with another, black when free; the grey lines are the depth-3 quadtree
cells of the seeds.  Needs only NumPy (the PNG is written with zlib)::

    python docs/make_picture.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

import broadphase as bp
from broadphase import scenarios

SIZE = 500
RED = (220, 30, 30)
BLACK = (20, 20, 20)
GREY = (200, 200, 210)


def write_png(path: Path, rgb: np.ndarray) -> None:
    """Write an (h, w, 3) uint8 image as an 8-bit RGB PNG."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    path.write_bytes(png)


def main() -> None:
    """Render the scene and write docs/scene.png."""
    boxes = scenarios.make("seed000", 1000)
    pairs = bp.find_pairs(boxes)
    hit = np.zeros(len(boxes), bool)
    hit[pairs.ravel()] = True
    img = np.full((SIZE, SIZE, 3), 255, np.uint8)
    step = SIZE // 8
    img[::step, :] = GREY
    img[:, ::step] = GREY
    for (x0, y0, x1, y1), red in zip(np.clip(boxes, 0, SIZE - 1).astype(int), hit, strict=True):
        color = RED if red else BLACK
        if red:
            img[y0:y1 + 1, x0:x1 + 1] = (250, 190, 190)
        img[y0, x0:x1 + 1] = color
        img[y1, x0:x1 + 1] = color
        img[y0:y1 + 1, x0] = color
        img[y0:y1 + 1, x1] = color
    out = Path(__file__).with_name("scene.png")
    write_png(out, img)
    print(f"{out}: {len(boxes)} boxes, {len(pairs)} pairs, {hit.sum()} boxes touching")


if __name__ == "__main__":
    main()
