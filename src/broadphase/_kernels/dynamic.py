"""The moving-objects quadtree: per-cell doubly linked lists (seeds 001, 002).

Derivation
----------
Seed 001 keeps, for every cell of the linear quadtree, a doubly linked list
of the objects in it, and in every object a reference to its cell: inserting
an object is pushing it on a list, moving it to another cell is unlinking it
and pushing it elsewhere, removing it is unlinking, all O(1).  Here the
lists are arrays: ``head[c]`` is the first node of cell c (c the linear
index (4**l - 1)/3 + Morton number, -1 when empty), ``node_prev`` /
``node_next`` link the nodes of one cell, ``node_cell`` says where a node is.

An object is placed like in ``find_pairs`` (``quadtree._level``): in the
seeds' cell, or, when that cell is more than ``slack`` levels above the
object's fit level (a small box on a high split line), in each of the at
most 2 x 2 cells it overlaps one level above its fit level.  So object h
owns the nodes 4h .. 4h + 3, of which it uses ``nx * ny``.  Its placement
(level, lower-left cell, nx, ny) is kept; a move that leaves it unchanged
touches no list (the common case for small steps), any other move is
O(1): unlink up to four nodes, link up to four.

Pairs come from the same entries as in ``find_pairs`` (one sort key per
node: the cell's pre-order key and the position of minx inside the cell),
walked once with the ancestor stack (``quadtree.walk``); the reference-point
rule drops the pairs that several replicas of two straddlers would repeat.
Coordinates are quantized with clamping, so objects partly or wholly
outside the bounds sit in the border cells: monotone quantization keeps
every overlap visible.
"""

from numba import njit, prange

from .morton import encode, quantize
from .narrow import SHAPE_BOX, box_circle_overlap, circle_overlap
from .quadtree import _LEVEL_BITS, _SUB_BITS, _SUB_TOP, _level, _sub


@njit(inline="always")
def cell_base(level):
    """Linear index of the first cell of ``level``: (4**level - 1) / 3."""
    return ((1 << (2 * level)) - 1) // 3


@njit(cache=True, parallel=True)
def store_and_place(h, boxes, tree_boxes, x0, y0, sx, sy, depth, slack, lv, cx, cy, nx, ny):
    """``tree_boxes[h] = boxes``, and :func:`placement` of the boxes."""
    for k in prange(h.shape[0]):
        for t in range(4):
            tree_boxes[h[k], t] = boxes[k, t]
    placement(boxes, x0, y0, sx, sy, depth, slack, lv, cx, cy, nx, ny)


@njit(cache=True, parallel=True)
def placement(boxes, x0, y0, sx, sy, depth, slack, lv, cx, cy, nx, ny):
    """Level, lower-left cell and extent (1 or 2 cells per axis) of each box."""
    top = (1 << depth) - 1
    for k in prange(boxes.shape[0]):
        ix0 = quantize(boxes[k, 0], x0, sx, top)
        iy0 = quantize(boxes[k, 1], y0, sy, top)
        ix1 = quantize(boxes[k, 2], x0, sx, top)
        iy1 = quantize(boxes[k, 3], y0, sy, top)
        level = _level(ix0, iy0, ix1, iy1, depth, slack)
        s = depth - level
        lv[k] = level
        cx[k] = ix0 >> s
        cy[k] = iy0 >> s
        nx[k] = 1 + ((ix1 >> s) != (ix0 >> s))
        ny[k] = 1 + ((iy1 >> s) != (iy0 >> s))


@njit(cache=True)
def check_handles(h, plv, hwm, stamp, mark):
    """First position of a handle that is not live (code 1) or repeats (code 2).

    Returns ``(position, code)``, ``(-1, 0)`` when all are live and distinct;
    ``stamp[k] == mark`` marks handles already seen (O(n), no sort).
    """
    for t in range(h.shape[0]):
        k = h[t]
        if k < 0 or k >= hwm or plv[k] < 0:
            return t, 1
        if stamp[k] == mark:
            return t, 2
        stamp[k] = mark
    return -1, 0


@njit(inline="always")
def _link(nd, c, node_cell, node_prev, node_next, head):
    first = head[c]
    node_prev[nd] = -1
    node_next[nd] = first
    if first >= 0:
        node_prev[first] = nd
    head[c] = nd
    node_cell[nd] = c


@njit(inline="always")
def _unlink(nd, node_cell, node_prev, node_next, head):
    p = node_prev[nd]
    q = node_next[nd]
    if p >= 0:
        node_next[p] = q
    else:
        head[node_cell[nd]] = q
    if q >= 0:
        node_prev[q] = p
    node_cell[nd] = -1


@njit(inline="always")
def _link_object(h, level, cx, cy, nx, ny, node_cell, node_prev, node_next, head):
    base = cell_base(level)
    for r in range(nx * ny):
        c = base + encode(cx + (r % nx), cy + (r // nx))
        _link(4 * h + r, c, node_cell, node_prev, node_next, head)


@njit(inline="always")
def _unlink_object(h, node_cell, node_prev, node_next, head):
    for r in range(4):
        if node_cell[4 * h + r] >= 0:
            _unlink(4 * h + r, node_cell, node_prev, node_next, head)


@njit(cache=True)
def relink(handles, lv, cx, cy, nx, ny, plv, pcx, pcy, pnx, pny,
           node_cell, node_prev, node_next, head):
    """Relink the objects whose placement changed; returns how many.

    Also registers new objects: a free slot's level is -1, so its placement
    always differs, and it has no node to unlink.
    """
    moved = 0
    for k in range(handles.shape[0]):
        h = handles[k]
        if (plv[h] == lv[k] and pcx[h] == cx[k] and pcy[h] == cy[k] and pnx[h] == nx[k]
                and pny[h] == ny[k]):
            continue  # same cells: nothing to relink
        _unlink_object(h, node_cell, node_prev, node_next, head)
        plv[h] = lv[k]
        pcx[h] = cx[k]
        pcy[h] = cy[k]
        pnx[h] = nx[k]
        pny[h] = ny[k]
        _link_object(h, lv[k], cx[k], cy[k], nx[k], ny[k], node_cell, node_prev, node_next,
                     head)
        moved += 1
    return moved


@njit(cache=True)
def unlink(handles, plv, node_cell, node_prev, node_next, head):
    """Remove objects from their cells' lists and mark their slots free."""
    for k in range(handles.shape[0]):
        h = handles[k]
        _unlink_object(h, node_cell, node_prev, node_next, head)
        plv[h] = -1


@njit(cache=True, parallel=True)
def entries(plv, pcx, pcy, pnx, pny, boxes, x0, sx, depth, starts, keys, objs):
    """Sort key and object of every node, as ``quadtree.entries`` makes them.

    ``starts[h]`` is the first entry of object h (``starts[h + 1] - starts[h]``
    its node count, 0 for a free slot).  ``objs`` holds h, or ~h for an object
    entered in several cells (the walk's reference-point flag).
    """
    for h in prange(plv.shape[0]):
        p = starts[h]
        n = starts[h + 1] - p
        if n == 0:
            continue
        level = plv[h]
        s = depth - level
        inv2s = 1.0 / (1 << s)
        up = 2 * s + _LEVEL_BITS
        t0 = (boxes[h, 0] * 0.5 - x0 * 0.5) * sx  # as in quantize
        tag = h if n == 1 else ~h
        for r in range(n):
            x = pcx[h] + (r % pnx[h])
            y = pcy[h] + (r // pnx[h])
            sub = min(_sub(t0, inv2s, x), _SUB_TOP)
            keys[p + r] = (((encode(x, y) << up) | level) << _SUB_BITS) | sub
            objs[p + r] = tag


@njit(cache=True)
def cells_of_box(box, x0, y0, sx, sy, depth, out):
    """Linear indices of the cells of every level that meet ``box`` (clamped).

    Returns how many were written, or -1 if there are more than ``out``
    holds (the caller then tests every object instead).
    """
    top = (1 << depth) - 1
    ix0 = quantize(box[0], x0, sx, top)
    iy0 = quantize(box[1], y0, sy, top)
    ix1 = quantize(box[2], x0, sx, top)
    iy1 = quantize(box[3], y0, sy, top)
    k = 0
    for level in range(depth + 1):
        s = depth - level
        base = cell_base(level)
        for y in range(iy0 >> s, (iy1 >> s) + 1):
            for x in range(ix0 >> s, (ix1 >> s) + 1):
                if k == out.shape[0]:
                    return -1
                out[k] = base + encode(x, y)
                k += 1
    return k


@njit(cache=True)
def list_objects(cells, ncells, head, node_next, stamp, mark, out):
    """Objects with a node in any of ``cells[:ncells]``, each once, unsorted.

    ``stamp[h] == mark`` marks an object already reported (a straddler has
    up to four nodes); the caller passes a fresh ``mark`` per query.
    """
    k = 0
    for t in range(ncells):
        nd = head[cells[t]]
        while nd >= 0:
            h = nd >> 2
            if stamp[h] != mark:
                stamp[h] = mark
                out[k] = h
                k += 1
            nd = node_next[nd]
    return k


@njit(cache=True)
def touching_box(handles, shapes, qx0, qy0, qx1, qy1, out):
    """Which objects overlap the box (strictly; circles exactly); returns the count."""
    k = 0
    for t in range(handles.shape[0]):
        h = handles[t]
        a = shapes[h]
        if a[0] == SHAPE_BOX:
            hit = (a[1] < qx1) & (qx0 < a[3]) & (a[2] < qy1) & (qy0 < a[4])
        else:
            hit = box_circle_overlap(qx0, qy0, qx1, qy1, a[1], a[2], a[3])
        if hit:
            out[k] = h
            k += 1
    return k


@njit(cache=True)
def containing_point(handles, shapes, x, y, out):
    """Which objects strictly contain the point (x, y); returns the count."""
    k = 0
    for t in range(handles.shape[0]):
        h = handles[t]
        a = shapes[h]
        if a[0] == SHAPE_BOX:
            hit = (a[1] < x) & (x < a[3]) & (a[2] < y) & (y < a[4])
        else:
            hit = circle_overlap(x, y, 0.0, a[1], a[2], a[3])
        if hit:
            out[k] = h
            k += 1
    return k
