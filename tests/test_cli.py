"""The ``broadphase`` command: ``pairs`` on files, ``bench`` at tiny n, ``--help``."""

import csv
import io
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import broadphase as bp
from broadphase import _io, _progress, bench, scenarios
from broadphase._cli import main


def brute(boxes):
    return bp.find_pairs(boxes, method="brute")


def write_csv(path, rows, header=None):
    with open(path, "w", newline="") as f:
        if header:
            f.write(header + "\n")
        for r in rows:
            f.write(",".join(repr(float(v)) for v in r) + "\n")


def read_pairs_csv(path):
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0] == "i,j"
    return np.array([[int(v) for v in ln.split(",")] for ln in lines[1:]],
                    np.intp).reshape(-1, 2)


@pytest.fixture
def boxes():
    return scenarios.make("mixed", 400, seed=5)


# --------------------------------------------------------------------------
# pairs: round trips


@pytest.mark.parametrize("header", [None, "minx,miny,maxx,maxy"])
def test_csv_to_csv(tmp_path, boxes, header, capsys):
    src, out = tmp_path / "b.csv", tmp_path / "p.csv"
    write_csv(src, boxes, header)
    assert main(["pairs", str(src), "-o", str(out)]) == 0
    np.testing.assert_array_equal(read_pairs_csv(out), brute(boxes))
    err = capsys.readouterr().err
    assert f"400 boxes, {len(brute(boxes)):,} colliding pairs" in err and " ms" in err


def test_npy_to_npy_and_methods(tmp_path, boxes):
    src = tmp_path / "b.npy"
    np.save(src, boxes)
    for method in ("auto", "sweep", "quadtree"):
        out = tmp_path / f"p_{method}.npy"
        assert main(["pairs", str(src), "-o", str(out), "--method", method]) == 0
        got = np.load(out)
        assert got.dtype == np.intp
        np.testing.assert_array_equal(got, brute(boxes))


def test_stdout_is_csv(tmp_path, boxes, capsys):
    src = tmp_path / "b.npy"
    np.save(src, boxes)
    assert main(["pairs", str(src)]) == 0
    out = capsys.readouterr().out.splitlines()
    got = np.array([[int(v) for v in ln.split(",")] for ln in out[1:]]).reshape(-1, 2)
    assert out[0] == "i,j"
    np.testing.assert_array_equal(got, brute(boxes))


def test_circles(tmp_path):
    c, r, _ = scenarios.make_circles("bullets", 600)
    src, out = tmp_path / "c.csv", tmp_path / "p.csv"
    write_csv(src, np.column_stack([c, r]), "x,y,r")
    assert main(["pairs", str(src), "--circles", "-o", str(out)]) == 0
    np.testing.assert_array_equal(read_pairs_csv(out),
                                  bp.find_circle_pairs(c, r, method="brute"))


def test_input_is_not_modified(tmp_path, boxes):
    src = tmp_path / "b.csv"
    write_csv(src, boxes)
    before = src.read_bytes()
    assert main(["pairs", str(src), "-o", str(tmp_path / "p.npy")]) == 0
    assert src.read_bytes() == before


# --------------------------------------------------------------------------
# pairs: errors name the file, line and column; nothing half written


@pytest.mark.parametrize("text, where", [
    ("minx,miny,maxx,maxy\n0,0,1,1\n2,2,x,3\n", "line 3, column 3 (maxx): expected a number, "
                                                 "found 'x'"),
    ("0,0,1,1\n2,2,3\n", "line 2: expected 4 columns (minx,miny,maxx,maxy), found 3"),
    ("0,0,1,1\n\n2,2,3,3\n", "line 2: empty line"),
    ("a,b,c\n0,0,1,1\n", "line 1: header 'a,b,c' does not name the columns read (expected "
                          "columns minx, miny, maxx, maxy (or xmin, ymin, xmax, ymax) or x, y, "
                          "w, h (or x, y, width, height); found columns a, b, c); also read: 3D "
                          "boxes minx,miny,minz,maxx,maxy,maxz or x,y,z,w,h,d, circles x,y,r, "
                          "spheres x,y,z,r, and files without a header"),
    ("h1,h2,h3,h4\n0,0,1,1\n", "line 1: header 'h1,h2,h3,h4' does not name the columns read"),
    ("minx,miny,maxx,maxy\n0,0,1,1\n5,0,2,2\n", "line 3: boxes[1]: minx 5.0 > maxx 2.0"),
    ("x,y,w,h\n0,0,1,1\n5,0,-2,2\n", "line 3: boxes[1]: w -2.0 < 0"),
    ("0,0,1,1,\n", "line 1: expected 4 columns (minx,miny,maxx,maxy), found 5"),
    ("0,0,1,1\n1_000,0,1,1\n", "line 2, column 1 (minx): expected a number, found '1_000'"),
    ("0,0,1,1\n2,2,3,3\n\xff,0,1,1\n", "line 3: not UTF-8 text"),
    ("0,0,1,1\n0,0,nan,1\n", "line 2: boxes[1]"),
    # numbers whose float64 reading would change what they are: refused, whatever the spelling
    ("0,0,9007199254740992,2\n9007199254740992,0,9007199254740993.0,2\n",
     "line 2, column 3 (maxx): integers up to 2**53 in magnitude expected (float64 holds them "
     "exactly), found 9007199254740993.0"),
    ("0,0,1,1\n0,0,9.007199254740993e15,1\n", "line 2, column 3 (maxx): integers up to 2**53"),
    ("0,0,1e-400,1\n0,0,1,1\n", "line 1, column 3 (maxx): 1e-400 is closer to 0 than float64 "
                                "reaches (it would be read as 0)"),
    ("0,0,1,1\n0,0,1e400,1\n", "line 2, column 3 (maxx): 1e400 passes float64's largest value"),
    ("0,0,1,1\n0,0," + "1" * 4301 + ",1\n", "line 2, column 3 (maxx): 1111111111111111111111111"
                                            "111111111111... passes float64's largest value"),
    ("0,0,1,1\n0,0,\uff12,1\n", "line 2, column 3 (maxx): expected a number, found '\uff12'"),
    ("0,0,2,x\n1,1,3,3\n", "line 1: header '0,0,2,x' does not name the columns read "
                          "(expected columns minx, miny, maxx, maxy"),
    ("left,top,right,bottom\n0,0,1,1\n", "line 2: boxes[0]: bottom 1.0 > top 0.0; left, bottom, "
                                          "right, top are read with y up"),
    ("x,y,r\n0,0,1,1\n", "line 2: expected 3 columns (x,y,r), found 4 (boxes? this file is "
                         "read as circles, for --circles or its header)"),
])
def test_malformed_csv_names_the_line(tmp_path, capsys, text, where):
    src = tmp_path / "bad.csv"
    # \xff: one byte that is not UTF-8 (latin-1); other characters as UTF-8
    src.write_bytes(text.encode("latin-1" if "\xff" in text else "utf-8"))
    assert main(["pairs", str(src), "-o", str(tmp_path / "p.csv")]) == 1
    err = capsys.readouterr().err
    assert f"bad.csv, {where}" in err, err
    assert not (tmp_path / "p.csv").exists()


def test_circle_file_given_as_boxes_gets_a_hint(tmp_path, capsys):
    src = tmp_path / "c.csv"
    src.write_text("1,2,0.5\n")
    assert main(["pairs", str(src)]) == 1
    assert "use --circles" in capsys.readouterr().err
    np.save(tmp_path / "c.npy", np.zeros((5, 3)))
    assert main(["pairs", str(tmp_path / "c.npy")]) == 1
    assert "found shape (5, 3) (circles x,y,r? use --circles)" in capsys.readouterr().err
    np.save(tmp_path / "b.npy", np.zeros((5, 4)))
    assert main(["pairs", str(tmp_path / "b.npy"), "--circles"]) == 1
    assert "(boxes? leave out --circles)" in capsys.readouterr().err


@pytest.mark.parametrize("make, msg", [
    (lambda p: np.save(p, np.zeros((3, 3))), "expected an array of shape (n, 4)"),
    (lambda p: np.save(p, np.array([["a", "b", "c", "d"]])), "expected real numbers"),
    (lambda p: p.write_bytes(b"not numpy"), "not a NumPy array file"),
])
def test_malformed_npy(tmp_path, capsys, make, msg):
    src = tmp_path / "bad.npy"
    make(src)
    assert main(["pairs", str(src)]) == 1
    assert msg in capsys.readouterr().err


def test_bad_names(tmp_path, capsys, boxes):
    assert main(["pairs", str(tmp_path / "missing.csv")]) == 1
    assert "missing.csv: no such file" in capsys.readouterr().err
    src = tmp_path / "b.txt"
    src.write_text("0,0,1,1\n")
    assert main(["pairs", str(src)]) == 1
    assert "expected a .csv or .npy file, found .txt" in capsys.readouterr().err
    np.save(tmp_path / "b.npy", boxes)
    assert main(["pairs", str(tmp_path / "b.npy"), "-o", str(tmp_path / "p.json")]) == 1
    assert "expected a .csv or .npy output file" in capsys.readouterr().err


def test_existing_output_survives_a_failed_run(tmp_path):
    out = tmp_path / "p.csv"
    out.write_text("precious\n")
    src = tmp_path / "bad.csv"
    src.write_text("0,0,1,1\n1,1,oops,2\n")
    assert main(["pairs", str(src), "-o", str(out)]) == 1
    assert out.read_text() == "precious\n"
    assert sorted(os.listdir(tmp_path)) == ["bad.csv", "p.csv"]


def test_interrupted_write_leaves_no_partial_file(tmp_path, monkeypatch, boxes):
    out = tmp_path / "p.csv"
    out.write_text("old\n")

    def boom(f, pairs, progress):
        f.write("i,j\n0,1\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(_io, "_write_csv", boom)
    with pytest.raises(KeyboardInterrupt):
        _io.write_pairs(str(out), brute(boxes))
    assert out.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["p.csv"]


def test_large_csv_is_read_in_blocks(tmp_path, monkeypatch):
    # small blocks: the error line is counted across block boundaries
    monkeypatch.setattr(_io, "BLOCK", 4)
    rows = scenarios.make("uniform", 500, seed=1)
    src = tmp_path / "b.csv"
    write_csv(src, rows, "minx,miny,maxx,maxy")
    got, first = _io.read_table(src, ("minx", "miny", "maxx", "maxy"))
    np.testing.assert_array_equal(got, rows)
    assert first == 2
    lines = src.read_text().splitlines()
    lines[400] = "1,2,three,4"
    src.write_text("\n".join(lines) + "\n")
    with pytest.raises(_io.InputError, match=r"line 401, column 3"):
        _io.read_table(src, ("minx", "miny", "maxx", "maxy"))


# --------------------------------------------------------------------------
# progress bar: only on a terminal


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # our own bar
    piped, tty = io.StringIO(), Tty()
    for stream in (piped, tty):
        with _progress.Progress(100, "reading", stream=stream) as bar:
            bar.update(100)
    assert piped.getvalue() == ""
    assert "reading [" in tty.getvalue() and "100%" in tty.getvalue()
    off = Tty()
    with _progress.Progress(100, "small", enabled=False, stream=off) as bar:
        bar.update(100)
    assert off.getvalue() == ""


# --------------------------------------------------------------------------
# help, bench


def test_help(capsys):
    for argv in (["--help"], ["pairs", "--help"], ["bench", "--help"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 0
    out = capsys.readouterr().out
    assert "usage: broadphase" in out and "--circles" in out and "--peers" in out
    assert main([]) == 2


def test_bench_smoke_with_installed_peers(tmp_path, capsys):
    table_csv = tmp_path / "bench.csv"
    argv = ["bench", "--scenario", "uniform", "bullets", "moving", "--n", "300", "--repeats",
            "1", "--peers", "--csv", str(table_csv)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "First call of each method (not in the table)" in out
    head = out.splitlines()[0]
    assert head.startswith("| scenario | n | pairs | auto |") and "| tree |" in head
    with open(table_csv) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3 * (6 + len(bench.PEERS)) + 1  # tree only in moving
    ours = {r["scenario"]: r["pairs"] for r in rows if r["method"] == "auto"}
    for r in rows:
        if r["method"] == bench.BASELINE:
            assert r["median_ms"] and not r["pairs"], r
            continue
        if r["peer"] == "False":
            assert r["median_ms"] and r["first_ms"] and r["note"] == "", r
            continue
        peer = next(p for p in bench.PEERS if p.name == r["method"])
        if peer.name == "pygame groupcollide":  # the sprites scene's only (test_pygame.py)
            assert r["note"].startswith(("n/a: sprite groups only", "not installed")), r
        elif not peer.available():
            assert r["note"].startswith("not installed") and not r["median_ms"], r
        elif 2 not in peer.dims:  # python-fcl: these scenes are 2D
            assert r["note"] == "n/a: 3D only" and not r["median_ms"], r
        else:  # every scene here suits every other peer: all sizes equal
            assert r["median_ms"] and r["pairs"] == ours[r["scenario"]], r
    c, rad, g = scenarios.make_circles("bullets", 300)
    assert int(ours["bullets"]) == len(bp.find_circle_pairs(c, rad, groups=g, method="brute"))


def test_bench_plot(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "b.png"
    assert main(["bench", "--scenario", "seed000", "--n", "200", "400", "--method", "auto",
                 "--repeats", "1", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_rejects_unknown_names():
    with pytest.raises(ValueError, match="scenario: expected one of"):
        bench.run(["nope"], [10])
    with pytest.raises(SystemExit):
        main(["bench", "--scenario", "nope"])


def test_module_and_script_run(tmp_path, boxes):
    np.save(tmp_path / "b.npy", boxes)
    proc = subprocess.run([sys.executable, "-m", "broadphase", "pairs", str(tmp_path / "b.npy")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stdout.startswith("i,j\n") and "colliding pairs" in proc.stderr
    assert "\r" not in proc.stderr  # piped: no progress bar


def test_bench_threads_give_the_same_pairs():
    one = bench.run(["clustered"], [3000], methods=["grid", "quadtree"], repeats=1, threads=1)
    two = bench.run(["clustered"], [3000], methods=["grid", "quadtree"], repeats=1, threads=2)
    assert [r.pairs for r in one] == [r.pairs for r in two]
    assert one[0].pairs == len(bp.find_pairs(scenarios.make("clustered", 3000), method="brute"))


def test_a_failing_peer_is_marked_not_fatal(monkeypatch):
    from broadphase import _peers

    def broken(problem):
        raise RuntimeError("an API that moved")

    peer = _peers.Peer("broken", "numpy", "numpy", None, broken)
    monkeypatch.setattr(bench, "PEERS", (peer,))
    rows = bench.run(["uniform"], [200], methods=["auto"], peers=True, repeats=1)
    assert rows[-1].note == "failed: RuntimeError: an API that moved" and rows[0].median_ms


# --------------------------------------------------------------------------
# pairs: what a file says is honoured, nothing misread, no traceback


@pytest.mark.parametrize("header, rows, circles", [
    ("\ufeff", [[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]], False),  # byte-order mark, no header
    ("\ufeffminx,miny,maxx,maxy\n", [[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]], False),
    ("x,y,w,h\n", [[0, 0, 2, 2], [1, 1, 2, 2], [5, 5, 1, 1]], False),
    ("X, Y, R\n", [[0, 0, 1], [1.5, 0, 1], [9, 9, 1]], True),  # circles without --circles
])
def test_headers_and_bom_are_honoured(tmp_path, header, rows, circles):
    src = tmp_path / "in.csv"
    src.write_text(header + "".join(",".join(map(str, r)) + "\n" for r in rows),
                   encoding="utf-8")
    assert main(["pairs", str(src), "-o", str(tmp_path / "p.npy")]) == 0
    got = np.load(tmp_path / "p.npy")
    r = np.array(rows, float)
    if circles:
        want = bp.find_circle_pairs(r[:, :2], r[:, 2], method="brute")
    elif header.startswith("x,y,w,h"):
        want = brute(np.hstack([r[:, :2], r[:, :2] + r[:, 2:]]))
    else:
        want = brute(r)
    np.testing.assert_array_equal(got, want)
    assert len(want) == 1  # every file has one pair: a misread row would change it


def test_header_for_circles_with_box_names(tmp_path, capsys):
    src = tmp_path / "c.csv"
    src.write_text("minx,miny,maxx,maxy\n0,0,1,1\n")
    assert main(["pairs", str(src), "--circles"]) == 1
    assert "expected x,y,r here, or no header" in capsys.readouterr().err


def test_folders_and_unwritable_places_are_named(tmp_path, capsys):
    src = tmp_path / "b.csv"
    write_csv(src, [[0, 0, 2, 2], [1, 1, 3, 3]])
    (tmp_path / "d.csv").mkdir()
    assert main(["pairs", str(tmp_path / "d.csv")]) == 1
    assert "d.csv: is a folder, expected a file" in capsys.readouterr().err
    assert main(["pairs", str(src), "-o", str(tmp_path / "d.csv")]) == 1
    assert "d.csv: is a folder, expected a file to write" in capsys.readouterr().err
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):  # root writes anywhere: nothing to test
            pytest.skip("running as a user who can write a read-only folder")
        assert main(["pairs", str(src), "-o", str(locked / "p.csv")]) == 1
        assert "cannot write here" in capsys.readouterr().err
    finally:
        locked.chmod(0o700)


def test_closed_pipe_ends_quietly(tmp_path):
    src = tmp_path / "b.npy"
    np.save(src, scenarios.make("uniform", 200_000))
    cmd = (f"{sys.executable} -m broadphase pairs {src} | head -1; "
           "echo \"status ${PIPESTATUS[0]}\"")
    run = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert run.stdout.splitlines() == ["i,j", "status 141"]
    assert "Traceback" not in run.stderr and "Error" not in run.stderr, run.stderr


def test_counts_are_worded_and_brute_force_warns(tmp_path, capsys, monkeypatch):
    import broadphase._cli as cli

    src = tmp_path / "b.csv"
    write_csv(src, [[0, 0, 2, 2], [1, 1, 3, 3]])
    assert main(["pairs", str(src), "-o", str(tmp_path / "p.csv")]) == 0
    assert "2 boxes, 1 colliding pair; search" in capsys.readouterr().err
    monkeypatch.setattr(cli, "BRUTE_WARN", 2)
    assert main(["pairs", str(src), "--method", "brute", "-o", str(tmp_path / "p.csv")]) == 0
    assert "--method brute tests all 1 pairs of 2 objects" in capsys.readouterr().err


# --------------------------------------------------------------------------
# what a user can cause is one line and a status, never a traceback


def _one_line(err):
    assert "Traceback" not in err and err.endswith("\n") and err.count("\n") == 1, err
    return err.rstrip("\n")


@pytest.mark.parametrize("make, msg", [
    (lambda p: p.write_bytes(b""), "e.npy: empty file (0 bytes), expected an array of shape "
                                   "(n, 4) (minx, miny, maxx, maxy) saved by numpy.save"),
    (lambda p: np.save(p, np.array([])), "e.npy: expected an array of shape (n, 4) (minx, miny, "
                                         "maxx, maxy), found shape (0,)"),
    (lambda p: np.save(p, np.empty((0, 0))), "found shape (0, 0)"),
    (lambda p: np.save(p, np.float64(1.0)), "found shape ()"),
    (lambda p: p.write_bytes(b"\x93NUMPY"), "e.npy: not a NumPy array file of numbers"),
    (lambda p: np.savez(open(p, "wb"), boxes=np.zeros((2, 4))),
     "e.npy: a .npz archive of arrays (numpy.savez), expected an array of shape (n, 4)"),
])
def test_empty_and_odd_npy_files_are_one_line(tmp_path, capsys, make, msg):
    src = tmp_path / "e.npy"
    make(src)
    assert main(["pairs", str(src), "-o", str(tmp_path / "p.npy")]) == 1
    assert msg in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "p.npy").exists()


def test_no_rows_is_a_valid_empty_input(tmp_path, capsys):
    for name, make in (("b.npy", lambda p: np.save(p, np.empty((0, 4)))),
                       ("c.npy", lambda p: np.save(p, np.empty((0, 3)))),
                       ("b.csv", lambda p: p.write_text("")),
                       ("h.csv", lambda p: p.write_text("minx,miny,maxx,maxy\n"))):
        make(tmp_path / name)
        out = tmp_path / "p.npy"
        circles = ["--circles"] if name == "c.npy" else []
        assert main(["pairs", str(tmp_path / name), "-o", str(out), *circles]) == 0
        got = np.load(out)
        assert got.shape == (0, 2) and got.dtype == np.intp
        assert "0 colliding pairs" in capsys.readouterr().err


@pytest.mark.parametrize("message, line", [
    ("112,492,500 colliding pairs: the result alone would take 1.7 GiB, more than the memory "
     "available; split the input or filter it (groups, categories, masks)",
     "broadphase: 112,492,500 colliding pairs: the result alone would take 1.7 GiB"),
    ("", "broadphase: out of memory"),
])
def test_memory_error_is_one_line(tmp_path, capsys, monkeypatch, message, line):
    import broadphase._cli as cli

    def too_many(*args, **kwargs):
        raise MemoryError(message)

    monkeypatch.setattr(cli, "find_pairs", too_many)
    np.save(tmp_path / "b.npy", np.tile([[0.0, 0, 1, 1]], (100, 1)))
    assert main(["pairs", str(tmp_path / "b.npy"), "-o", str(tmp_path / "p.npy")]) == 1
    assert _one_line(capsys.readouterr().err).startswith(line)
    assert not (tmp_path / "p.npy").exists()


def test_interrupt_in_process_is_status_130(tmp_path, capsys, monkeypatch):
    import broadphase._cli as cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "find_pairs", interrupted)
    np.save(tmp_path / "b.npy", np.zeros((3, 4)))
    assert main(["pairs", str(tmp_path / "b.npy"), "-o", str(tmp_path / "p.npy")]) == 130
    assert _one_line(capsys.readouterr().err) == "broadphase: interrupted"
    assert os.listdir(tmp_path) == ["b.npy"]


def test_ctrl_c_ends_with_130_and_one_line(tmp_path):
    # a brute-force search of n boxes, a few seconds here; its warning says the
    # search is about to start, and Ctrl-C comes half a second later
    import signal

    rng = np.random.default_rng(2)
    n = 200_000
    for _attempt in range(3):
        xy = rng.uniform(0, 1000, (n, 2))
        src, out = tmp_path / "big.npy", tmp_path / "out.npy"
        np.save(src, np.hstack([xy, xy + 0.5]))
        proc = subprocess.Popen([sys.executable, "-m", "broadphase", "pairs", str(src), "-o",
                                 str(out), "--method", "brute"],
                                stderr=subprocess.PIPE, text=True)
        try:
            warning = proc.stderr.readline()
            assert "--method brute tests all" in warning, warning + proc.stderr.read()
            time.sleep(0.5)
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                rest = proc.stderr.read()
                assert proc.wait(timeout=60) == 130, rest
                break
            proc.wait()
            n *= 2  # a fast machine: more boxes
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stderr.close()
    else:
        pytest.skip("the search never lasted half a second on this machine")
    assert rest == "broadphase: interrupted\n", rest
    assert not out.exists() and sorted(os.listdir(tmp_path)) == ["big.npy"]


def test_files_that_cannot_be_read_are_one_line(tmp_path, capsys, monkeypatch):
    # as root every file is readable: the error a locked file gives, raised
    def locked(path, columns, progress=True):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(_io, "read_table", locked)
    src = tmp_path / "b.csv"
    write_csv(src, [[0, 0, 1, 1]])
    assert main(["pairs", str(src)]) == 1
    assert _one_line(capsys.readouterr().err) == f"broadphase pairs: {src}: Permission denied"


def test_bench_and_demo_outputs_are_checked_before_the_work(tmp_path, capsys, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("ran before checking where the results go")

    monkeypatch.setattr(bench, "run", never)
    (tmp_path / "d").mkdir()
    argv = ["bench", "--n", "100", "--repeats", "1"]
    for option, path, msg in (
            ("--csv", tmp_path / "d", "is a folder, expected a file to write"),
            ("--markdown", tmp_path / "none" / "t.md", f"the folder {tmp_path / 'none'} does "
                                                      "not exist"),
            ("--plot", tmp_path / "none" / "b.png", "does not exist")):
        assert main([*argv, option, str(path)]) == 1
        err = _one_line(capsys.readouterr().err)
        assert err.startswith(f"broadphase bench: {option} {path}: ") and msg in err, err
    pytest.importorskip("pygame")
    from broadphase import demo

    monkeypatch.setattr(demo, "run", never)
    assert main(["demo", "--headless", "--frames", "1", "--screenshot",
                 str(tmp_path / "d")]) == 1
    assert "--screenshot" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("argv", [
    ["bench", "--repeats", "0"],
    ["demo", "--n", "-5"],
    ["demo", "--frames", "x"],
])
def test_counts_must_be_whole_numbers_from_1(capsys, argv):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "expected at least 1, found" in err or "expected a whole number, found 'x'" in err


def test_other_output_errors_are_one_line(tmp_path, capsys, monkeypatch):
    # a disk that fills up while the table is written
    def full(rows, path):
        raise OSError(28, "No space left on device", path)

    monkeypatch.setattr(bench, "write_csv", full)
    path = tmp_path / "t.csv"
    assert main(["bench", "--scenario", "seed000", "--n", "100", "--method", "auto",
                 "--repeats", "1", "--csv", str(path)]) == 1
    err = _one_line(capsys.readouterr().err)
    assert err == f"broadphase bench: {path}: No space left on device"


def test_blank_lines_are_trailing_only_at_the_end_of_the_file(tmp_path, monkeypatch):
    # small blocks, a blank line at every place in turn: inside the file it is an empty
    # line named by its number, wherever the blocks end; at the end it is dropped
    monkeypatch.setattr(_io, "BLOCK", 2)
    rows = [f"{k},0,{k + 1},1" for k in range(40)]
    src = tmp_path / "b.csv"
    for at in range(1, 40):
        src.write_text("minx,miny,maxx,maxy\n" + "\n".join(rows[:at] + [""] + rows[at:]) + "\n")
        with pytest.raises(_io.InputError, match=rf"line {at + 2}: empty line"):
            _io.read_table(src, ("minx", "miny", "maxx", "maxy"))
    src.write_text("minx,miny,maxx,maxy\n" + "\n".join(rows) + "\n\n\n\n")
    got, _ = _io.read_table(src, ("minx", "miny", "maxx", "maxy"))
    assert got.shape == (40, 4) and got[-1].tolist() == [39, 0, 40, 1]


def test_a_header_of_the_other_kind_is_named_as_such(tmp_path):
    src = tmp_path / "b.csv"
    src.write_text("minx,miny,maxx,maxy\n0,0,1,1\n")
    with pytest.raises(_io.InputError, match=r"names other columns than this command reads; "
                                             r"expected x,y,r here"):
        _io.read_table(src, ("x", "y", "r"))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_the_output_file_gets_the_mode_a_new_file_gets(tmp_path):
    old = os.umask(0o022)
    try:
        for name in ("p.csv", "p.npy"):
            _io.write_pairs(str(tmp_path / name), np.array([[0, 1]]))
            assert (tmp_path / name).stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)
