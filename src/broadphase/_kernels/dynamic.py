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
move is O(1): unlink up to four nodes, link up to four.  Unlike the seeds,
the relinking waits (the object is marked stale) until something reads
the lists, a query: pairs need no lists, and a frame that moves everything
then spends nothing on them.  Big batches link in cell order
(:func:`link_sorted`), so that a cell's list head is touched once per
batch, not once per node.

Pairs come from the same entries as in ``find_pairs`` (one sort key per
node: the cell's pre-order key and the position of minx inside the cell),
walked once with the ancestor stack (``quadtree.walk``); the reference-point
rule drops the pairs that several replicas of two straddlers would repeat.
Frames are coherent: the entries sorted for the last ``pairs()`` are kept,
those of objects that changed cells are dropped, the rest re-keyed (from
``sub0``, stored by the move) and re-sorted within their cells, and merged
with the freshly sorted entries of the objects that changed cells, in
parallel chunks cut at cell boundaries (:func:`refresh`), instead of
re-sorting everything.  Coordinates are quantized with clamping, so
objects partly or wholly outside the bounds sit in the border cells:
monotone quantization keeps every overlap visible.
"""

import numpy as np
from numba import njit, prange

from .check import OK, box_problem
from .morton import encode, quantize
from .narrow import SHAPE_BOX, box_circle_overlap, circle_overlap
from .quadtree import _LEVEL_BITS, _SUB_BITS, _SUB_TOP, _level


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
CLEAN = 0  # not its cells: its sorted entries stand, re-keyed (minx may have moved)
RELINKED = 1  # its cells, or it was added: drop its entries, make new ones
REMOVED = 2  # it was removed: drop its entries


@njit(cache=True, parallel=True)
def store_and_place(h, boxes, rows, kind, box_rows, shapes, tree_boxes, x0, y0, sx, sy, depth,
                    slack, plv, pcx, pcy, pnx, pny, sub0, dirty, stale):
    """Store boxes and shape rows, place them; returns how many changed placement.

    ``tree_boxes[h] = boxes``; ``shapes[h, 1:] = (*rows, 0...)``, but for a
    box only if ``box_rows``: only a walk with circles about reads the
    coordinates of a box's row (a second copy of its box).  The kind column
    is the caller's (set once, at insert).  Moving every box is bound by
    memory traffic: each row not written saved a tenth of the move.  When
    the placement of ``boxes[k]`` differs from the stored one (always for a
    new object: a free slot's level is -1), it is counted, the new
    placement stored, the object marked RELINKED and ``stale``: its nodes
    stay in the lists of its old cells until :func:`unlink_stale` and a
    link (the lists are brought up to date lazily, by their first reader).
    Either way ``sub0``, where minx falls in its first cell (the low bits
    of that entry's sort key, see :func:`entries`), is stored.
    """
    changed = 0
    for k in prange(h.shape[0]):
        changed += _store_one(k, h[k], boxes, rows, kind, box_rows, shapes, tree_boxes, x0, y0,
                              sx, sy, depth, slack, plv, pcx, pcy, pnx, pny, sub0, dirty, stale)
    return changed


@njit(inline="always")
def _store_one(k, o, boxes, rows, kind, box_rows, shapes, tree_boxes, x0, y0, sx, sy, depth,
               slack, plv, pcx, pcy, pnx, pny, sub0, dirty, stale):
    """:func:`store_and_place` of ``boxes[k]`` into slot ``o``; 1 if it changed cells."""
    for t in range(4):
        tree_boxes[o, t] = boxes[k, t]
    if box_rows or kind != SHAPE_BOX:
        w = rows.shape[1]
        for t in range(4):
            shapes[o, 1 + t] = rows[k, t] if t < w else 0.0
    lv, cx, cy, nx, ny = _place_one(boxes, k, x0, y0, sx, sy, depth, (1 << depth) - 1, slack)
    sub0[o] = _sub0(boxes[k, 0], x0, sx, depth - lv, cx)
    ch = (plv[o] != lv) | (pcx[o] != cx) | (pcy[o] != cy) | (pnx[o] != nx) | (pny[o] != ny)
    if ch:
        plv[o] = lv
        pcx[o] = cx
        pcy[o] = cy
        pnx[o] = nx
        pny[o] = ny
        dirty[o] = RELINKED
        stale[o] = 1
    return ch


@njit(inline="always")
def _movable(h, t, boxes, hwm, plv, kinds):
    """Whether handle ``h[t]`` is a live box above ``h[t - 1]`` and ``boxes[t]`` a valid box."""
    return (box_problem(boxes[t, 0], boxes[t, 1], boxes[t, 2], boxes[t, 3]) == OK
            and _in_order(h, t, plv, hwm, kinds, SHAPE_BOX))


@njit(inline="always")
def _in_order(h, t, plv, hwm, kinds, kind):
    """Whether ``h[t]`` is live, of shape ``kind`` (any if < 0) and above ``h[t - 1]``."""
    k = h[t]
    return (0 <= k < hwm and plv[k] >= 0 and (kind < 0 or kinds[k] == kind)
            and (t == 0 or h[t - 1] < k))


@njit(cache=True, parallel=True)
def move_boxes(h, boxes, hwm, kinds, box_rows, shapes, tree_boxes, x0, y0, sx, sy, depth, slack,
               plv, pcx, pcy, pnx, pny, sub0, dirty, stale):
    """:func:`store_and_place` for box objects after one parallel pass of checks.

    Returns -1, having changed nothing, unless every handle is a live box
    above the one before it and every box finite with ``min <= max``: the
    caller then checks again with the functions that name the problem (or
    accept handles in any order).  One call instead of three for a frame's
    move: a batch of a thousand objects paid as much for starting the
    parallel passes and the calls as for its work.  (The same loops in
    the calling thread, to spare small batches the waking of the other
    threads, measured three times slower: misses no longer overlap.)
    """
    bad = 0
    for t in prange(h.shape[0]):
        bad += not _movable(h, t, boxes, hwm, plv, kinds)
    if bad:
        return -1
    changed = 0
    for k in prange(h.shape[0]):
        changed += _store_one(k, h[k], boxes, boxes, SHAPE_BOX, box_rows, shapes, tree_boxes,
                              x0, y0, sx, sy, depth, slack, plv, pcx, pcy, pnx, pny, sub0,
                              dirty, stale)
    return changed


# 2**-s, exact: a table load instead of a division per object.
_INV2S = np.array([2.0**-s for s in range(64)])


@njit(inline="always")
def _sub0(minx, x0, sx, s, cx):
    """Where ``minx`` falls inside the column ``cx`` of cells 2**s finest cells wide, in 1/256ths.

    The low bits of the sort key of an object's entries in its first
    column; its second column (if any) starts right of minx, so there they
    are 0: quantize's floor(t) >> s is cx, so t * 2**-s < cx + 1.  Equal to
    ``min(quadtree._sub(t, 2**-s, cx), 255)``, clamped with selects instead
    of branches.
    """
    t0 = (minx * 0.5 - x0 * 0.5) * sx  # as in quantize
    f = (t0 * _INV2S[s] - cx) * (_SUB_TOP + 1)
    return int(min(f if f > 0.0 else 0.0, float(_SUB_TOP)))


@njit(inline="always")
def _place_one(boxes, k, x0, y0, sx, sy, depth, top, slack):
    """Placement ``(level, cx, cy, nx, ny)`` of box ``k``: ``quadtree._level``'s rule.

    A box spanning at most 2 finest cells per axis has the finest level as
    its fit level, so at slack 0 (the tree's) its level, max(XOR level,
    fit level), is the finest: no level to work out for most small boxes
    (a third of the move's placement time).
    """
    ix0 = quantize(boxes[k, 0], x0, sx, top)
    iy0 = quantize(boxes[k, 1], y0, sy, top)
    ix1 = quantize(boxes[k, 2], x0, sx, top)
    iy1 = quantize(boxes[k, 3], y0, sy, top)
    if (slack == 0) & (ix1 - ix0 <= 1) & (iy1 - iy0 <= 1):
        return depth, ix0, iy0, 1 + (ix1 - ix0), 1 + (iy1 - iy0)
    level = _level(ix0, iy0, ix1, iy1, depth, slack)
    s = depth - level
    return (level, ix0 >> s, iy0 >> s, 1 + ((ix1 >> s) != (ix0 >> s)),
            1 + ((iy1 >> s) != (iy0 >> s)))


@njit(cache=True, parallel=True)
def placement(boxes, x0, y0, sx, sy, depth, slack, lv, cx, cy, nx, ny):
    """Level, lower-left cell and extent (1 or 2 cells per axis) of each box."""
    top = (1 << depth) - 1
    for k in prange(boxes.shape[0]):
        lv[k], cx[k], cy[k], nx[k], ny[k] = _place_one(boxes, k, x0, y0, sx, sy, depth, top,
                                                       slack)


@njit(cache=True, parallel=True)
def check_handles(h, plv, hwm, stamp, mark, kinds, kind):
    """First position of a handle that is unknown, repeated or of the wrong kind.

    Code 1: not live; 2: seen before in ``h``; 3: when ``kind >= 0``, its
    shape is of another kind (``kinds``: one SHAPE_* per slot, a byte each,
    not the shape table's first column, whose rows fill a cache line each).
    Returns ``(position, code)``, ``(-1, 0)`` when all are fine.
    Handles in increasing order (a frame's "move them all") cannot repeat:
    one parallel pass checks them.  Otherwise, or to name the first bad
    one, a serial pass marks each handle seen with ``stamp[k] = mark`` (O(n),
    no sort).
    """
    bad = 0
    for t in prange(h.shape[0]):
        bad += not _in_order(h, t, plv, hwm, kinds, kind)
    if bad == 0:
        return -1, 0
    return _check_serial(h, plv, hwm, stamp, mark, kinds, kind)


@njit(inline="always")
def _check_serial(h, plv, hwm, stamp, mark, kinds, kind):
    for t in range(h.shape[0]):
        k = h[t]
        if k < 0 or k >= hwm or plv[k] < 0:
            return t, 1
        if stamp[k] == mark:
            return t, 2
        stamp[k] = mark
        if kind >= 0 and kinds[k] != kind:
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
def _col_row(r, nx):
    """Column and row of node ``r`` of an object ``nx`` (1 or 2) cells wide.

    ``r % nx`` and ``r // nx`` without an integer division (tens of cycles
    each, a third of the entries kernel's time).
    """
    w = nx - 1
    return r & w, r >> w


@njit(inline="always")
def _node_cell(h, r, plv, pcx, pcy, pnx):
    col, row = _col_row(r, pnx[h])
    return cell_base(plv[h]) + encode(pcx[h] + col, pcy[h] + row)


@njit(cache=True)
def _touch(stale, nodes):
    """Read every node of the ``stale`` objects and their neighbours, in two passes.

    Unlinking is a chain of dependent random accesses (a node, then its
    neighbours); issuing all the loads of one step at once, as independent
    loads, lets the memory system overlap their misses, so the unlinking
    itself then hits the cache (2.5x faster at 12,000 relinks).  The
    returned sum only keeps the loads from being dropped.
    """
    acc = 0
    for k in range(stale.shape[0]):
        acc += nodes[4 * stale[k], NODE_CELL]
    for k in range(stale.shape[0]):
        for r in range(4):
            nd = 4 * stale[k] + r
            p = nodes[nd, NODE_PREV]
            q = nodes[nd, NODE_NEXT]
            if nodes[nd, NODE_CELL] >= 0:
                acc += nodes[max(p, 0), NODE_CELL] + nodes[max(q, 0), NODE_CELL]
    return acc


@njit(cache=True)
def unlink_stale(stale, nodes, head):
    """Take the ``stale`` objects' nodes out of the lists of their old cells.

    :func:`link_moved` or :func:`link_sorted` then links them into the
    cells of their stored placement.
    """
    _touch(stale, nodes)
    for t in range(stale.shape[0]):
        _unlink_object(stale[t], nodes, head)


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
def unlink(handles, plv, nodes, head, dirty, stale):
    """Remove objects from the lists holding their nodes and mark their slots free."""
    for k in range(handles.shape[0]):
        h = handles[k]
        _unlink_object(h, nodes, head)
        plv[h] = -1
        dirty[h] = REMOVED
        stale[h] = 0


@njit(inline="always")
def _entries_one(h, p, plv, pcx, pcy, pnx, pny, sub0, depth, keys, objs):
    """Write the sort keys and objects of object ``h``'s nodes to ``keys[p:], objs[p:]``."""
    n = pnx[h] * pny[h]
    level = plv[h]
    up = 2 * (depth - level) + _LEVEL_BITS
    tag = h if n == 1 else ~h
    for r in range(n):
        col, row = _col_row(r, pnx[h])
        sub = sub0[h] if col == 0 else 0
        code = encode(pcx[h] + col, pcy[h] + row)
        keys[p + r] = (((code << up) | level) << _SUB_BITS) | sub
        objs[p + r] = tag


@njit(cache=True, parallel=True)
def entries(objs_in, plv, pcx, pcy, pnx, pny, sub0, depth, keys, objs):
    """Unsorted sort keys and objects of the nodes of the placed objects ``objs_in``.

    In the order of ``objs_in``.  As ``quadtree.entries``: ``objs`` holds
    h, or ~h for an object entered in several cells (the walk's
    reference-point flag), as int32 (``_chunks._IDX``); the low bits of a
    key are ``sub0[h]`` in the object's first column, 0 in its second.
    ``keys``/``objs`` are the caller's, with room for all (4 per object at
    most): reused scratch, because fresh memory costs a page fault per 4
    KiB, a third of this function's time when it allocated its own.
    Returns how many were written.  Each chunk of objects counts its
    nodes, then writes them after the counts of the chunks before: the
    same for any thread count.
    """
    k = objs_in.shape[0]
    nch = max(1, min(256, k // 4096))
    ends = np.zeros(nch + 1, np.int64)
    for c in prange(nch):
        part = objs_in[c * k // nch:(c + 1) * k // nch]
        t = 0
        for i in range(part.shape[0]):
            t += pnx[part[i]] * pny[part[i]]
        ends[c + 1] = t
    for c in range(nch):
        ends[c + 1] += ends[c]
    for c in prange(nch):
        part = objs_in[c * k // nch:(c + 1) * k // nch]
        p = ends[c]
        for i in range(part.shape[0]):
            h = part[i]
            _entries_one(h, p, plv, pcx, pcy, pnx, pny, sub0, depth, keys, objs)
            p += pnx[h] * pny[h]
    return ends[nch]


@njit(cache=True, parallel=True)
def refresh(sk, so, dirty, sub0, pcx, depth, nk, no, bounds, out_k, out_o):
    """Last call's sorted entries, updated, merged with the sorted new ones ``nk, no``.

    The kept entries are those of CLEAN objects: an object that kept
    its placement kept its cells, so only the low ``_SUB_BITS`` of its keys
    (where minx falls inside the cell) can have changed.  The kept keys are
    thus still sorted above those bits, and each entry moves only within
    its own cell.  So the old entries are cut into ``bounds.shape[0] - 1``
    chunks at cell boundaries; a first parallel pass counts each chunk's
    kept entries, which fixes where each chunk writes; a chunk's cells
    cover the keys from its first cell's lowest key up to the next
    chunk's, so the new entries in that range are found by binary search.
    Then each chunk, in parallel, makes one pass over its old entries
    (:func:`_refresh_chunk`): drops, re-keys and insertion-sorts them while
    merging its new entries in.  O(entries + displacements); the result is
    sorted and the same for any chunking or thread count (ties stay within
    a cell, in an order fixed by the data).  Returns the number of entries
    written to ``out``.
    """
    m = sk.shape[0]
    nch = bounds.shape[0] - 1
    bounds[0] = 0
    bounds[nch] = m
    for c in prange(1, nch):
        b = c * m // nch
        while 0 < b < m and (sk[b] >> _SUB_BITS) == (sk[b - 1] >> _SUB_BITS):
            b += 1
        bounds[c] = b
    kept = np.empty(nch, np.int64)
    for c in prange(nch):
        kept[c] = _count_kept(so[bounds[c]:bounds[c + 1]], dirty)
    # the new entries chunk c merges: nk[split[c]:split[c + 1]]
    split = np.empty(nch + 1, np.int64)
    split[0] = 0
    split[nch] = nk.shape[0]
    for c in range(1, nch):
        b = bounds[c]
        if b >= m:
            split[c] = nk.shape[0]
        else:
            split[c] = np.searchsorted(nk, (sk[b] >> _SUB_BITS) << _SUB_BITS)
    at = np.empty(nch, np.int64)
    total = 0
    for c in range(nch):
        at[c] = total + split[c]
        total += kept[c]
    done = np.empty(nch, np.bool_)
    for c in prange(nch):
        a, b, j, j1 = bounds[c], bounds[c + 1], split[c], split[c + 1]
        done[c] = _refresh_chunk(sk[a:b], so[a:b], dirty, sub0, pcx, depth, nk[j:j1],
                                 no[j:j1], out_k[at[c]:], out_o[at[c]:])
    return total + nk.shape[0] if done.all() else -1


# Chunks are passed as views and walked from index 0: a loop over
# range(a, b) with a signed start makes numba check every index for
# wrap-around (a negative index counts from the end), which LLVM cannot
# drop; from 0 it can (the refresh: 10% faster, a plain copy 5 times).


@njit(inline="always")
def _count_kept(so, dirty):
    k = 0
    for e in range(so.shape[0]):
        o = so[e]
        k += dirty[o ^ (o >> 31)] == CLEAN
    return k


# Insertion moves a refresh chunk may make per entry before giving up (a
# frame of the moving benchmark makes about 0.7).
_MOVES_PER_ENTRY = 8


@njit(inline="always")
def _refresh_chunk(sk, so, dirty, sub0, pcx, depth, nk, no, out_k, out_o):
    """Old entries ``sk, so`` and new ``nk, no``, merged into ``out``, sorted.

    Each kept entry is re-keyed (its sub is ``sub0`` in its first column,
    0 in a second: the x bit of its cell tells, as the first column is
    ``pcx``; unchanged for an object that did not move), preceded by the
    new entries below it, and moved back past the larger ones written
    before it.  Invariant: ``out[:t]`` is sorted and every new entry still
    to come is >= each kept entry written so far, so the tail needs no
    sorting.  Returns False, unfinished, once the moves exceed the budget.
    (Measured no faster: a branch-free compare-exchange for the first
    steps back; a window of three entries held in registers; two passes
    with the re-keying first and a branch-free merge.)
    """
    lvmask = (1 << _LEVEL_BITS) - 1
    t = 0
    j = 0
    budget = _MOVES_PER_ENTRY * (sk.shape[0] + nk.shape[0]) + 64
    for e in range(sk.shape[0]):
        o = so[e]
        h = o ^ (o >> 31)
        if dirty[h] != CLEAN:
            continue
        key = sk[e] >> _SUB_BITS
        up = 2 * (depth - (key & lvmask)) + _LEVEL_BITS
        first = (((key >> up) ^ pcx[h]) & 1) == 0
        nkey = (key << _SUB_BITS) | (sub0[h] if first else 0)
        while j < nk.shape[0] and nk[j] < nkey:
            out_k[t] = nk[j]
            out_o[t] = no[j]
            t += 1
            j += 1
        u = t
        while u > 0 and out_k[u - 1] > nkey:
            out_k[u] = out_k[u - 1]
            out_o[u] = out_o[u - 1]
            u -= 1
        out_k[u] = nkey
        out_o[u] = o
        t += 1
        budget -= t - u
        if budget < 0:
            return False
    while j < nk.shape[0]:
        out_k[t] = nk[j]
        out_o[t] = no[j]
        t += 1
        j += 1
    return True


@njit(cache=True, parallel=True)
def stream_rows(rows, chunks):
    """Read ``rows`` front to back, in ``chunks`` parallel stretches.

    Run before a gather in random order over rows just rewritten: the
    rewrite (and everything since) has pushed them out of the cache, and
    the hardware prefetcher brings them back far faster front to back than
    random misses do (0.55 + 0.15 ms instead of 1.1 ms for 1e5 boxes, as
    measured while writing this; ``benchmarks/frame_stages.py`` times the
    two stages in a frame).  The
    returned sum only keeps the loads from being dropped.
    """
    n = rows.shape[0]
    acc = 0.0
    for c in prange(chunks):
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            acc += rows[i, 0]
    return acc


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
def touching_box(handles, shapes, boxes, qx0, qy0, qx1, qy1, out):
    """Which objects overlap the box (strictly; circles exactly); returns the count."""
    k = 0
    for t in range(handles.shape[0]):
        h = handles[t]
        a = shapes[h]
        if a[0] == SHAPE_BOX:
            b = boxes[h]
            hit = (b[0] < qx1) & (qx0 < b[2]) & (b[1] < qy1) & (qy0 < b[3])
        else:
            hit = box_circle_overlap(qx0, qy0, qx1, qy1, a[1], a[2], a[3])
        if hit:
            out[k] = h
            k += 1
    return k


@njit(cache=True)
def containing_point(handles, shapes, boxes, x, y, out):
    """Which objects strictly contain the point (x, y); returns the count."""
    k = 0
    for t in range(handles.shape[0]):
        h = handles[t]
        a = shapes[h]
        if a[0] == SHAPE_BOX:
            b = boxes[h]
            hit = (b[0] < x) & (x < b[2]) & (b[1] < y) & (y < b[3])
        else:
            hit = circle_overlap(x, y, 0.0, a[1], a[2], a[3])
        if hit:
            out[k] = h
            k += 1
    return k
