"""The moving-objects quadtree: per-cell doubly linked lists (seeds 001, 002).

Derivation
----------
Seed 001 keeps, for every cell of the linear quadtree, a doubly linked list
of the objects in it, and in every object a reference to its cell: inserting
an object is pushing it on a list, moving it to another cell is unlinking it
and pushing it elsewhere, removing it is unlinking, all O(1).  Here the
lists are arrays: ``head[c]`` is the first node of cell c (c the linear
index (4**l - 1)/3 + Morton number, -1 when empty), and row ``nd`` of the
node table holds the node's cell and its previous and next node.

An object is placed with the core's straddler rule (``quadtree._level``)
at slack 0: in the seeds' cell when that is its fit level (the deepest
level at which it spans at most 2 cells per axis), else in each of the at
most 2 x 2 cells it overlaps at the fit level.  (Slack 0 replicates more
boxes than ``find_pairs``' slack 1, but makes 3-7 times fewer candidate
tests per pair: a tree is walked every frame, placed only incrementally.)
So object h owns the nodes 4h .. 4h + 3, of which it uses ``nx * ny``.
Its placement (level, lower-left cell, nx, ny) is kept; a move that leaves
it unchanged touches no list (the common case for small steps), any other
move is O(1): unlink up to four nodes, link up to four.  Big batches link
in cell order (:func:`link_sorted`), so that a cell's list head is
touched once per batch, not once per node.

Pairs come from the same entries as in ``find_pairs`` (one sort key per
node: the cell's pre-order key and the position of minx inside the cell),
walked once with the ancestor stack (``quadtree.walk``); the reference-point
rule drops the pairs that several replicas of two straddlers would repeat.
Frames are coherent: the entries sorted for the last ``pairs()`` are kept,
those of objects that changed cells are dropped, the rest re-keyed and
re-sorted within their cells (:func:`refresh`), and merged with the
freshly sorted entries of the moved objects (:func:`merge`), instead of
re-sorting everything.  Coordinates are quantized with clamping, so
objects partly or wholly outside the bounds sit in the border cells:
monotone quantization keeps every overlap visible.
"""

from numba import njit, prange

from .morton import compact, encode, quantize
from .narrow import SHAPE_BOX, box_circle_overlap, circle_overlap
from .quadtree import _LEVEL_BITS, _SUB_BITS, _SUB_TOP, _level, _sub


@njit(inline="always")
def cell_base(level):
    """Linear index of the first cell of ``level``: (4**level - 1) / 3."""
    return ((1 << (2 * level)) - 1) // 3


# Columns of the node table: one row of four int32 per node, so a node is
# one 16-byte load and an object's four nodes share one 64-byte cache line
# (the table is allocated 64-byte aligned); relinking is random access and
# pays per line touched.
NODE_CELL = 0  # linear index of the cell whose list holds the node, -1 if none
NODE_PREV = 1
NODE_NEXT = 2


# Values of ``dirty[h]``, what changed since the last ``pairs()``.
CLEAN = 0  # nothing: its sorted entries stand
MOVED = 1  # its box, within the same cells: re-key its entries (minx moved)
RELINKED = 2  # its cells (or it was added or removed): drop its entries, make new ones


@njit(cache=True, parallel=True)
def store_and_place(h, boxes, rows, kind, shapes, tree_boxes, x0, y0, sx, sy, depth, slack,
                    plv, pcx, pcy, pnx, pny, lv, cx, cy, nx, ny, dirty, changed):
    """Store boxes and shape rows, place them, flag those whose placement changed.

    ``changed[k]``: the placement of ``boxes[k]`` differs from the stored
    one.  ``tree_boxes[h] = boxes``; ``shapes[h] = (kind, *rows, 0...)``; the
    stored placement is left for :func:`unlink_moved` to update.  A free
    slot's level is -1, so a new object always counts as changed.
    """
    w = rows.shape[1]
    placement(boxes, x0, y0, sx, sy, depth, slack, lv, cx, cy, nx, ny)
    for k in prange(h.shape[0]):
        o = h[k]
        for t in range(4):
            tree_boxes[o, t] = boxes[k, t]
        shapes[o, 0] = kind
        for t in range(4):
            shapes[o, 1 + t] = rows[k, t] if t < w else 0.0
        changed[k] = ((plv[o] != lv[k]) | (pcx[o] != cx[k]) | (pcy[o] != cy[k])
                      | (pnx[o] != nx[k]) | (pny[o] != ny[k]))
        dirty[o] = max(dirty[o], MOVED)


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
def check_handles(h, plv, hwm, stamp, mark, shapes, kind):
    """First position of a handle that is unknown, repeated or of the wrong kind.

    Code 1: not live; 2: seen before in ``h``; 3: when ``kind >= 0``, its
    shape is of another kind.  Returns ``(position, code)``, ``(-1, 0)`` when all are fine;
    ``stamp[k] == mark`` marks handles already seen (O(n), no sort).
    """
    for t in range(h.shape[0]):
        k = h[t]
        if k < 0 or k >= hwm or plv[k] < 0:
            return t, 1
        if stamp[k] == mark:
            return t, 2
        stamp[k] = mark
        if kind >= 0 and shapes[k, 0] != kind:
            return t, 3
    return -1, 0


@njit(inline="always")
def _link(nd, c, nodes, head):
    first = head[c]
    nodes[nd, NODE_PREV] = -1
    nodes[nd, NODE_NEXT] = first
    nodes[nd, NODE_CELL] = c
    if first >= 0:
        nodes[first, NODE_PREV] = nd
    head[c] = nd


@njit(inline="always")
def _unlink(nd, nodes, head):
    p = nodes[nd, NODE_PREV]
    q = nodes[nd, NODE_NEXT]
    if p >= 0:
        nodes[p, NODE_NEXT] = q
    else:
        head[nodes[nd, NODE_CELL]] = q
    if q >= 0:
        nodes[q, NODE_PREV] = p
    nodes[nd, NODE_CELL] = -1


@njit(inline="always")
def _unlink_object(h, nodes, head):
    for r in range(4):
        if nodes[4 * h + r, NODE_CELL] >= 0:
            _unlink(4 * h + r, nodes, head)


@njit(inline="always")
def _node_cell(h, r, plv, pcx, pcy, pnx):
    nx = pnx[h]
    return cell_base(plv[h]) + encode(pcx[h] + (r % nx), pcy[h] + (r // nx))


@njit(cache=True)
def _touch(moved, plv, nodes):
    """Read every node of the ``moved`` objects and their neighbours, in two passes.

    Unlinking is a chain of dependent random accesses (a node, then its
    neighbours); issuing all the loads of one step at once, as independent
    loads, lets the memory system overlap their misses, so the unlinking
    itself then hits the cache (2.5x faster at 12,000 relinks).  The
    returned sum only keeps the loads from being dropped.
    """
    acc = 0
    for k in range(moved.shape[0]):
        if plv[moved[k]] >= 0:  # a new object has no nodes yet
            acc += nodes[4 * moved[k], NODE_CELL]
    for k in range(moved.shape[0]):
        if plv[moved[k]] < 0:
            continue
        for r in range(4):
            nd = 4 * moved[k] + r
            p = nodes[nd, NODE_PREV]
            q = nodes[nd, NODE_NEXT]
            if nodes[nd, NODE_CELL] >= 0:
                acc += nodes[max(p, 0), NODE_CELL] + nodes[max(q, 0), NODE_CELL]
    return acc


@njit(cache=True)
def unlink_moved(moved, at, lv, cx, cy, nx, ny, plv, pcx, pcy, pnx, pny, nodes, head, dirty):
    """Take the ``moved`` objects out of their lists and store their new placement.

    ``at[k]`` is the row of ``moved[k]`` in the placement arrays.  They are
    marked RELINKED (their entries must be rebuilt); :func:`link_moved` or
    :func:`link_sorted` then links them into their new cells.
    """
    _touch(moved, plv, nodes)
    for t in range(moved.shape[0]):
        h = moved[t]
        k = at[t]
        if plv[h] >= 0:
            _unlink_object(h, nodes, head)
        plv[h] = lv[k]
        pcx[h] = cx[k]
        pcy[h] = cy[k]
        pnx[h] = nx[k]
        pny[h] = ny[k]
        dirty[h] = RELINKED


@njit(cache=True)
def link_moved(moved, plv, pcx, pcy, pnx, pny, nodes, head):
    """Link every node of the ``moved`` objects into its cell's list, in the given order."""
    for k in range(moved.shape[0]):
        h = moved[k]
        for r in range(pnx[h] * pny[h]):
            _link(4 * h + r, _node_cell(h, r, plv, pcx, pcy, pnx), nodes, head)


@njit(cache=True, parallel=True)
def node_cells(moved, starts, plv, pcx, pcy, pnx, pny, cells, ids):
    """Cell and node of every node of the ``moved`` objects (``starts``: prefix counts)."""
    for k in prange(moved.shape[0]):
        h = moved[k]
        p = starts[k]
        for r in range(pnx[h] * pny[h]):
            cells[p + r] = _node_cell(h, r, plv, pcx, pcy, pnx)
            ids[p + r] = 4 * h + r


@njit(cache=True)
def link_sorted(cells, ids, nodes, head):
    """Link nodes sorted by cell.

    Each run of one cell is chained in place and spliced in front of the
    cell's list, so the list head and the old first node are touched once
    per run rather than once per node.
    """
    m = cells.shape[0]
    a = 0
    while a < m:
        c = cells[a]
        b = a + 1
        while b < m and cells[b] == c:
            b += 1
        old = head[c]
        for t in range(a, b):
            nd = ids[t]
            nodes[nd, NODE_CELL] = c
            nodes[nd, NODE_PREV] = ids[t - 1] if t > a else -1
            nodes[nd, NODE_NEXT] = ids[t + 1] if t + 1 < b else old
        if old >= 0:
            nodes[old, NODE_PREV] = ids[b - 1]
        head[c] = ids[a]
        a = b


@njit(cache=True)
def unlink(handles, plv, nodes, head, dirty):
    """Remove objects from their cells' lists and mark their slots free."""
    for k in range(handles.shape[0]):
        h = handles[k]
        _unlink_object(h, nodes, head)
        plv[h] = -1
        dirty[h] = RELINKED


@njit(cache=True, parallel=True)
def entries(hs, plv, pcx, pcy, pnx, pny, boxes, x0, sx, depth, starts, keys, objs):
    """Sort key and object of every node of the objects ``hs``, as ``quadtree.entries``.

    ``starts[k]`` is the first entry of object ``hs[k]`` (``starts[k + 1] -
    starts[k]`` its node count).  ``objs`` holds h, or ~h for an object
    entered in several cells (the walk's reference-point flag).
    """
    for k in prange(hs.shape[0]):
        h = hs[k]
        p = starts[k]
        n = starts[k + 1] - p
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
def refresh(sk, so, dirty, boxes, x0, sx, depth, out_k, out_o):
    """Last call's sorted entries, minus the RELINKED objects', re-sorted; returns the count.

    An object that kept its placement kept its cells, so only the low
    ``_SUB_BITS`` of its keys (where minx falls inside the cell) can have
    changed, and only if it MOVED: the kept keys are still sorted above
    those bits, and an insertion sort (run while compacting) moves each
    entry only within its own cell.  O(entries + displacements), reading
    the boxes of the moved objects only.
    """
    lvmask = (1 << _LEVEL_BITS) - 1
    k = 0
    for e in range(sk.shape[0]):
        o = so[e]
        h = o ^ (o >> 31)
        d = dirty[h]
        if d == RELINKED:
            continue
        nk = sk[e]
        if d == MOVED:
            key = nk >> _SUB_BITS
            s = depth - (key & lvmask)
            x = compact(key >> _LEVEL_BITS) >> s
            t0 = (boxes[h, 0] * 0.5 - x0 * 0.5) * sx
            nk = (key << _SUB_BITS) | min(_sub(t0, 1.0 / (1 << s), x), _SUB_TOP)
        t = k
        while t > 0 and out_k[t - 1] > nk:
            out_k[t] = out_k[t - 1]
            out_o[t] = out_o[t - 1]
            t -= 1
        out_k[t] = nk
        out_o[t] = o
        k += 1
    return k


@njit(cache=True)
def merge(ak, ao, bk, bo, out_k, out_o):
    """Merge two sorted entry lists into ``out``."""
    i = 0
    j = 0
    na = ak.shape[0]
    nb = bk.shape[0]
    for t in range(na + nb):
        if j >= nb or (i < na and ak[i] <= bk[j]):
            out_k[t] = ak[i]
            out_o[t] = ao[i]
            i += 1
        else:
            out_k[t] = bk[j]
            out_o[t] = bo[j]
            j += 1


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
def list_objects(cells, ncells, head, nodes, stamp, mark, out):
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
            nd = nodes[nd, NODE_NEXT]
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
