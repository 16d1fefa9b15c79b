"""broadphase.dask.read_parquet on GeoParquet 1.1 files: the bbox covering columns.

Files come from GeoPandas (``to_parquet(write_covering_bbox=True)``) and from
pyarrow by hand (metadata written out here); expected pairs come from the
brute-force reference on boxes written out by hand.
"""

import json

import numpy as np
import pytest

import naive

pytest.importorskip("dask")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import broadphase.dask as bpd  # noqa: E402

BOXES = np.array([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 4.0], [10.0, 10.0, 10.0, 10.0],
                  [2.5, -1.0, 6.0, 0.5], [5.0, 0.0, 7.0, 1.0], [-3.0, -3.0, 0.5, 0.5]])
KEYS2 = ("xmin", "ymin", "xmax", "ymax")
KEYS3 = ("xmin", "ymin", "zmin", "xmax", "ymax", "zmax")


def brute3(b):
    lo, hi = b[:, :3], b[:, 3:]
    hit = np.all((lo[:, None] < hi[None]) & (lo[None] < hi[:, None]), axis=2)
    i, j = np.nonzero(np.triu(hit, 1))
    return np.stack([i, j], axis=1).tolist()


def geo_meta(covering=None, primary="geometry"):
    col = {"encoding": "WKB", "geometry_types": []}
    if covering is not None:
        col["covering"] = {"bbox": covering}
    return {"version": "1.1.0", "primary_column": primary, "columns": {primary: col}}


def write_by_hand(path, boxes, keys=KEYS2, column="cover", order=None, covering="default",
                  row_group_size=None, extra=None):
    """A GeoParquet file written with pyarrow: geometry bytes, a struct of bounds, metadata."""
    order = list(keys) if order is None else order
    fields = pa.StructArray.from_arrays([pa.array(boxes[:, keys.index(k)]) for k in order],
                                        names=order)
    cols = {"id": pa.array(np.arange(len(boxes)) * 10), "geometry": pa.array([b"x"] * len(boxes)),
            column: fields}
    cols.update(extra or {})
    cover = {k: [column, k] for k in keys} if covering == "default" else covering
    table = pa.table(cols).replace_schema_metadata(
        {b"geo": json.dumps(geo_meta(cover)).encode()})
    pq.write_table(table, path, row_group_size=row_group_size)


def test_geopandas_file_with_bbox_covering(tmp_path):
    gpd = pytest.importorskip("geopandas")
    shapely = pytest.importorskip("shapely")
    geoms = [shapely.box(0, 0, 2, 2), shapely.Polygon([(1, 1), (3, 1), (2, 4)]),
             shapely.Point(10, 10), shapely.LineString([(2.5, -1), (6, 0.5)]),
             shapely.box(5, 0, 7, 1),
             shapely.MultiPolygon([shapely.box(-3, -3, -2, -2), shapely.box(0, 0, 0.5, 0.5)])]
    frame = gpd.GeoDataFrame({"team": [1, 1, 2, 2, 3, 3], "minx": [9.0] * 6}, geometry=geoms)
    frame.to_parquet(tmp_path / "g.parquet", write_covering_bbox=True, row_group_size=4)
    boxes = bpd.read_parquet(tmp_path / "g.parquet")
    assert boxes.chunks == ((4, 2), (4,))
    np.testing.assert_array_equal(boxes.compute(), BOXES)
    np.testing.assert_array_equal(bpd.find_pairs(boxes).compute(), naive.box_pairs(BOXES))
    team = bpd.read_parquet(tmp_path / "g.parquet", "team", np.int64)
    np.testing.assert_array_equal(bpd.find_pairs(boxes, groups=team).compute(),
                                  naive.box_pairs(BOXES, groups=[1, 1, 2, 2, 3, 3]))


def test_geopandas_file_without_covering_says_how_to_write_one(tmp_path):
    gpd = pytest.importorskip("geopandas")
    shapely = pytest.importorskip("shapely")
    gpd.GeoDataFrame(geometry=[shapely.box(0, 0, 1, 1)]).to_parquet(tmp_path / "g.parquet")
    with pytest.raises(ValueError, match=r"g\.parquet is GeoParquet without a bbox covering for "
                                         r"its geometry column 'geometry'.*"
                                         r"to_parquet\(path, write_covering_bbox=True\)"):
        bpd.read_parquet(tmp_path / "g.parquet")


@pytest.mark.parametrize("bad", ["empty", "missing"])
def test_empty_geometry_is_refused_naming_the_row(tmp_path, bad):
    gpd = pytest.importorskip("geopandas")
    shapely = pytest.importorskip("shapely")
    geoms = [shapely.box(0, 0, 1, 1), shapely.box(2, 2, 3, 3),
             shapely.Polygon() if bad == "empty" else None]
    gpd.GeoDataFrame(geometry=geoms).to_parquet(tmp_path / "g.parquet",
                                                write_covering_bbox=True, row_group_size=2)
    boxes = bpd.read_parquet(tmp_path / "g.parquet")
    with pytest.raises(ValueError, match=r"bbox\.xmin: expected values, found a null in row 2 "
                                         r"of .*g\.parquet \(an empty or missing geometry\)"):
        boxes.compute()


def test_written_by_hand_fields_by_name_and_several_row_groups(tmp_path):
    # the struct's fields in another order, another column name, an extra field
    write_by_hand(tmp_path / "h.parquet", BOXES, column="bounds",
                  order=["ymax", "xmin", "xmax", "ymin"], row_group_size=2)
    boxes = bpd.read_parquet(tmp_path / "h.parquet")
    assert boxes.chunks == ((2, 2, 2), (4,))
    np.testing.assert_array_equal(boxes.compute(), BOXES)
    np.testing.assert_array_equal(bpd.find_pairs(boxes, tile_rows=2).compute(),
                                  naive.box_pairs(BOXES))


def test_a_folder_of_files(tmp_path):
    write_by_hand(tmp_path / "part-0.parquet", BOXES[:4])
    write_by_hand(tmp_path / "part-1.parquet", BOXES[4:])
    np.testing.assert_array_equal(bpd.read_parquet(tmp_path).compute(), BOXES)


def test_3d_covering(tmp_path):
    cubes = np.array([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3], [1, 1, 5, 3, 3, 6],
                      [0, 0, 5.5, 1.5, 1.5, 9]], float)
    write_by_hand(tmp_path / "c.parquet", cubes, keys=KEYS3)
    boxes = bpd.read_parquet(tmp_path / "c.parquet", bpd.COLUMNS_3D)
    np.testing.assert_array_equal(boxes.compute(), cubes)
    assert bpd.find_pairs(boxes).compute().tolist() == brute3(cubes) == [[0, 1], [2, 3]]
    # a 2D covering read as 3D: which field is missing is named
    write_by_hand(tmp_path / "f.parquet", BOXES)
    with pytest.raises(ValueError, match=r"the bbox covering of 'geometry' has no zmin \(it has "
                                         r"xmin, ymin, xmax, ymax\)"):
        bpd.read_parquet(tmp_path / "f.parquet", bpd.COLUMNS_3D)


def test_plain_columns_are_read_as_before(tmp_path):
    # a file with the plain columns reads them, as for any Parquet file
    plain = BOXES + 100
    write_by_hand(tmp_path / "p.parquet", BOXES,
                  extra={k: pa.array(plain[:, j]) for j, k in enumerate(bpd.COLUMNS)})
    np.testing.assert_array_equal(bpd.read_parquet(tmp_path / "p.parquet").compute(), plain)
    pq.write_table(pa.table({k: BOXES[:, j] for j, k in enumerate(bpd.COLUMNS)}),
                   tmp_path / "q.parquet")
    np.testing.assert_array_equal(bpd.read_parquet(tmp_path / "q.parquet").compute(), BOXES)


@pytest.mark.parametrize("covering, match", [
    ({"xmin": ["cover", "xmin"], "ymin": ["cover", "ymin"], "xmax": ["cover", "xmax"]},
     r"the bbox covering of 'geometry' has no ymax"),
    ({k: ["nope", k] for k in KEYS2}, r"names the column 'nope', which the file does not have"),
    ({k: ["cover", k + "_"] for k in KEYS2}, r"names the field 'xmin_' of 'cover'"),
    ({k: "cover" for k in KEYS2}, r"the bbox covering's xmin is 'cover'; expected \[column, "
                                  r"field\]"),
    (None, r"without a bbox covering"),
])
def test_bad_coverings_are_named(tmp_path, covering, match):
    write_by_hand(tmp_path / "b.parquet", BOXES, covering=covering)
    with pytest.raises(ValueError, match=match):
        bpd.read_parquet(tmp_path / "b.parquet")


def test_covering_of_another_type_is_refused(tmp_path):
    fields = pa.StructArray.from_arrays([pa.array(["a"] * 2)] * 4, names=list(KEYS2))
    table = pa.table({"geometry": pa.array([b"x"] * 2), "cover": fields}).replace_schema_metadata(
        {b"geo": json.dumps(geo_meta({k: ["cover", k] for k in KEYS2})).encode()})
    pq.write_table(table, tmp_path / "s.parquet")
    with pytest.raises(TypeError, match=r"cover\.xmin: expected integers or floats .* found "
                                        r"type string in .*s\.parquet"):
        bpd.read_parquet(tmp_path / "s.parquet")


def test_other_columns_of_a_geoparquet_file_are_plain(tmp_path):
    write_by_hand(tmp_path / "h.parquet", BOXES)
    ids = bpd.read_parquet(tmp_path / "h.parquet", "id", np.int64).compute()
    assert ids.tolist() == [0, 10, 20, 30, 40, 50]
    with pytest.raises(ValueError, match=r"expected the columns minx, y in .* missing minx, y"):
        bpd.read_parquet(tmp_path / "h.parquet", ["minx", "y"])
