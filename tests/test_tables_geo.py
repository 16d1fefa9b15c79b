"""GeoPandas GeoSeries and GeoDataFrames read as boxes: their geometries' bounds.

Every entry point that reads tables by name (find_pairs, find_pairs_between, the
tree's insert and move, broadphase.dask.find_pairs) gives the same pairs for a
GeoSeries as for the same boxes as an array; the expected pairs come from the
brute-force reference (``naive``) on the boxes written out by hand.
"""

import numpy as np
import pytest

import broadphase as bp
import naive

gpd = pytest.importorskip("geopandas")
shapely = pytest.importorskip("shapely")

# boxes written out by hand; the geometries below have exactly these bounds
BOXES = np.array([
    [0.0, 0.0, 2.0, 2.0],      # a square
    [1.0, 1.0, 3.0, 4.0],      # a triangle's bounds
    [10.0, 10.0, 10.0, 10.0],  # a point
    [2.5, -1.0, 6.0, 0.5],     # a line
    [5.0, 0.0, 7.0, 1.0],      # a square
    [-3.0, -3.0, 0.5, 0.5],    # a multipolygon
])


def geoms():
    return [
        shapely.box(0, 0, 2, 2),
        shapely.Polygon([(1, 1), (3, 1), (2, 4)]),
        shapely.Point(10, 10),
        shapely.LineString([(2.5, -1), (6, 0.5)]),
        shapely.box(5, 0, 7, 1),
        shapely.MultiPolygon([shapely.box(-3, -3, -2, -2), shapely.box(0, 0, 0.5, 0.5)]),
    ]


@pytest.fixture
def gs():
    return gpd.GeoSeries(geoms(), index=[10, 20, 30, 40, 50, 60])  # not 0..n-1: rows by position


@pytest.fixture
def gdf(gs):
    # other columns that name box corners must never be read
    return gpd.GeoDataFrame({"minx": [100.0] * 6, "maxx": [0.0] * 6, "width": [1.0] * 6,
                             "team": [1, 1, 2, 2, 3, 3]}, geometry=gs, index=gs.index)


def test_bounds_are_the_boxes_written_by_hand(gs):
    np.testing.assert_array_equal(gs.bounds.to_numpy(), BOXES)
    assert naive.box_pairs(BOXES).tolist() == [[0, 1], [0, 5], [3, 4]]


@pytest.mark.parametrize("method", ["auto", "brute", "sweep", "grid", "quadtree"])
def test_find_pairs_geoseries_and_geodataframe(gs, gdf, method):
    want = naive.box_pairs(BOXES)
    np.testing.assert_array_equal(bp.find_pairs(gs, method=method), want)
    np.testing.assert_array_equal(bp.find_pairs(gdf, method=method), want)
    np.testing.assert_array_equal(bp.find_pairs(BOXES, method=method), want)


def test_geodataframe_reads_its_active_geometry_only(gdf):
    other = gpd.GeoSeries([shapely.Point(k, k) for k in range(6)], index=gdf.index)
    gdf = gdf.assign(centroids=other)
    assert bp.find_pairs(gdf).tolist() == naive.box_pairs(BOXES).tolist()
    moved = gdf.set_geometry("centroids")  # points 0..5 apart: no pairs
    assert bp.find_pairs(moved).tolist() == []


def test_filters_beside_a_geodataframe(gdf):
    team = gdf["team"].to_numpy()
    want = naive.box_pairs(BOXES, groups=team)
    np.testing.assert_array_equal(bp.find_pairs(gdf, groups=team), want)


def test_find_pairs_between(gs, gdf):
    other = gpd.GeoSeries([shapely.box(1.5, 1.5, 2.5, 2.5), shapely.Point(6, 0.5)])
    b = np.array([[1.5, 1.5, 2.5, 2.5], [6, 0.5, 6, 0.5]])
    want = naive.pairs_between(BOXES, b)
    np.testing.assert_array_equal(bp.find_pairs_between(gs, other), want)
    np.testing.assert_array_equal(bp.find_pairs_between(gdf, b), want)
    np.testing.assert_array_equal(bp.find_pairs_between(BOXES, other), want)


def test_tree_insert_and_move(gs, gdf):
    tree = bp.LinearQuadtree((-16, -16, 16, 16), depth=4)
    h = tree.insert(gs)
    assert h.tolist() == list(range(6))
    assert tree.pairs().tolist() == naive.box_pairs(BOXES).tolist()
    # move the first two boxes to where two others' geometries are
    tree.move(h[:2], gdf.iloc[[4, 2]])
    moved = BOXES.copy()
    moved[[0, 1]] = BOXES[[4, 2]]
    assert tree.pairs().tolist() == naive.box_pairs(moved).tolist()
    assert tree.pairs().tolist() == [[0, 3], [0, 4], [3, 4]]
    tree2 = bp.LinearQuadtree((-16, -16, 16, 16), depth=4)
    tree2.insert(gdf)
    assert tree2.pairs().tolist() == naive.box_pairs(BOXES).tolist()


@pytest.mark.parametrize("bad", [shapely.Polygon(), shapely.Point(), None])
def test_empty_or_missing_geometry_is_refused_naming_the_row(gs, bad):
    g = geoms()
    g[3] = bad
    broken = gpd.GeoSeries(g, index=gs.index)
    what = "a missing geometry" if bad is None else "an empty geometry"
    with pytest.raises(ValueError, match=rf"^boxes\[3\]: {what}.* has no bounds"):
        bp.find_pairs(broken)
    with pytest.raises(ValueError, match=rf"^boxes\[3\]: {what}"):
        bp.find_pairs(gpd.GeoDataFrame({"a": range(6)}, geometry=broken, index=gs.index))
    with pytest.raises(ValueError, match=r"^boxes_b\[3\]: "):
        bp.find_pairs_between(BOXES, broken)
    tree = bp.LinearQuadtree((-16, -16, 16, 16), depth=4)
    with pytest.raises(ValueError, match=r"boxes\[3\]: "):
        tree.insert(broken)
    assert len(tree) == 0


def test_format_xywh_contradicts_bounds(gs):
    with pytest.raises(ValueError, match=r"format: 'xywh' reads columns x, y, w, h .* "
                                         r"minx, miny, maxx, maxy \(corners\)"):
        bp.find_pairs(gs, format="xywh")


def test_geoseries_is_not_read_as_centres(gs):
    with pytest.raises(TypeError, match=r"centers: expected centres, found a GeoSeries"):
        bp.find_circle_pairs(gs, 1.0)


def test_geodataframe_without_active_geometry():
    frame = gpd.GeoDataFrame({"minx": [0.0], "miny": [0.0], "maxx": [1.0], "maxy": [1.0]})
    with pytest.raises(ValueError, match=r"boxes: a GeoDataFrame without an active geometry"):
        bp.find_pairs(frame)


def test_dask_find_pairs(gs, gdf):
    pytest.importorskip("dask")
    import broadphase.dask as bpd

    want = naive.box_pairs(BOXES)
    np.testing.assert_array_equal(bpd.find_pairs(gs).compute(), want)
    np.testing.assert_array_equal(bpd.find_pairs(gdf).compute(), want)
    team = gdf["team"].to_numpy()
    np.testing.assert_array_equal(bpd.find_pairs(gdf, groups="team").compute(),
                                  naive.box_pairs(BOXES, groups=team))
    with pytest.raises(ValueError, match=r"groups: .* 'nope', which is no column"):
        bpd.find_pairs(gdf, groups="nope")


def test_many_random_boxes_as_geometries():
    rng = np.random.default_rng(7)
    lo = rng.integers(0, 200, (400, 2)).astype(float)
    b = np.hstack([lo, lo + rng.integers(0, 12, (400, 2))])
    g = gpd.GeoSeries(shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3]))
    np.testing.assert_array_equal(bp.find_pairs(g), naive.box_pairs(b))
