"""``broadphase demo``, headless (SDL's dummy video driver): scenes, keys, pixels."""

import os

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")
os.environ["SDL_VIDEODRIVER"] = "dummy"

import broadphase as bp  # noqa: E402
from broadphase import demo, morton, scenarios  # noqa: E402
from broadphase._cli import main  # noqa: E402

RED = demo.RED


def key(k):
    return pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0)


@pytest.mark.parametrize("scene", demo.SCENES)
@pytest.mark.parametrize("method", ["auto", "tree", "quadtree", "none"])
def test_every_scene_runs(scene, method):
    frames = 150 if scene == "bullets" else 30  # rings of two emitters meet after ~100
    stats = demo.run(scene, headless=True, frames=frames, method=method)
    assert stats["frames"] == frames and stats["method"] == method
    if scene != "morton":
        assert stats["objects"] > 0
        assert (stats["pairs"] > 0) == (method != "none")


def test_rects_red_exactly_where_the_library_reports(tmp_path):
    png = tmp_path / "rects.png"
    stats = demo.run("rects", n=300, headless=True, frames=5, screenshot=str(png))
    sc = stats["scene"]
    boxes = sc.boxes()
    touching = np.zeros(300, bool)
    touching[bp.find_pairs(boxes, method="brute").ravel()] = True
    np.testing.assert_array_equal(sc.touched, touching)
    img = pygame.surfarray.array3d(pygame.image.load(str(png)))
    r = sc.view.rects(boxes)
    x, y = r[:, 0], r[:, 1]
    # a box's top-left pixel is on its outline; sample those no other outline can touch
    other = ((x[None, :] - 1 <= x[:, None]) & (x[:, None] <= x[None, :] + r[None, :, 2])
             & (y[None, :] - 1 <= y[:, None]) & (y[:, None] <= y[None, :] + r[None, :, 3]))
    np.fill_diagonal(other, False)
    clear = np.flatnonzero(~other.any(1))
    assert touching[clear].sum() >= 3 and (~touching[clear]).sum() >= 3
    for k in clear.tolist():
        want = RED if touching[k] else demo.BLACK
        assert tuple(img[x[k], y[k]]) == want, (k, touching[k])


def test_bullets_of_one_emitter_never_turn_red(tmp_path):
    # 30 frames: one ring per emitter, its 32 bullets all overlapping each other,
    # the emitters far apart: no contact counts, nothing may be red
    png = tmp_path / "bullets.png"
    stats = demo.run("bullets", headless=True, frames=30, screenshot=str(png))
    sc = stats["scene"]
    assert sc.n == 320 and stats["pairs"] == 0
    same = bp.find_circle_pairs(sc.xy, scenarios.BULLET_RADIUS)
    assert len(same) > 1000  # they do overlap, within each emitter
    img = pygame.surfarray.array3d(pygame.image.load(str(png)))[:, :600]
    assert (img == demo.CYAN).all(-1).any()
    assert not (img == RED).all(-1).any()


@pytest.mark.parametrize("method", ["auto", "tree", "quadtree"])
def test_bullets_touch_like_find_circle_pairs(method):
    stats = demo.run("bullets", headless=True, frames=400, method=method)
    sc = stats["scene"]
    p = bp.find_circle_pairs(sc.xy, scenarios.BULLET_RADIUS, groups=sc.emitter, method="brute")
    touching = np.zeros(sc.n, bool)
    touching[p.ravel()] = True
    assert len(p) > 0
    np.testing.assert_array_equal(sc.touched, touching)
    assert (sc.emitter[p[:, 0]] != sc.emitter[p[:, 1]]).all()


def test_morton_clicks_show_the_seed_numbers():
    view = demo._View(demo._Morton.SIDE, demo._Morton.SIDE)
    cell, ox = demo._Morton.SIDE / 8 * view.s, view.ox
    assert ox > 0  # the square world is centred across the wider window
    clicks = [(3, 6), (0, 0), (7, 7), (5, 2)]
    for ix, iy in clicks:
        ev = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(ox + int((ix + 0.5) * cell),
                                                             int((iy + 0.5) * cell)), button=1)
        sc = demo.run("morton", headless=True, frames=2, events=[ev])["scene"]
        assert sc.clicked == (ix, iy, int(morton.encode(ix, iy)))
    assert demo.run("morton", headless=True, frames=1, events=[pygame.event.Event(
        pygame.MOUSEBUTTONDOWN, pos=(ox + int(3.5 * cell), int(6.5 * cell)), button=1)]
    )["scene"].clicked[2] == 45  # the guide's example: cell (3, 6) at L=3 is 45


def test_morton_box_steps_follow_the_seed():
    moves = [key(pygame.K_RIGHT)] * 20 + [key(pygame.K_DOWN)] * 7
    sc = demo.run("morton", headless=True, frames=2, events=moves)["scene"]
    e = sc.explain()
    c0, c1 = e["corners"]
    assert e["xor"] == c0 ^ c1
    lv, idx = morton.locate(sc.box, sc.bounds, 3)
    assert (e["level"], e["cell"]) == (int(lv[0]), int(idx[0]))
    assert e["shift"] == 2 * (3 - e["level"])
    assert e["linear"] == int(morton.linear_index(e["level"], e["cell"]))
    assert tuple(sc.box[:2]) == (150 + 80, 100 + 28)
    assert f"cell {e['cell']}" in sc.info()
    # its own keys: method keys and +/- do nothing there (+ used to reset the box)
    moves += [key(pygame.K_PLUS), key(pygame.K_3), key(pygame.K_MINUS)]
    stats = demo.run("morton", headless=True, frames=2, events=moves)
    assert tuple(stats["scene"].box[:2]) == (230, 128) and stats["method"] == "auto"
    assert "arrows move the box" in demo._Morton.keys


def test_keys_switch_method_count_pause_and_cells(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    events = [key(pygame.K_4), key(pygame.K_PLUS), key(pygame.K_g), key(pygame.K_SPACE),
              key(pygame.K_s)]
    stats = demo.run("rects", n=100, headless=True, frames=3, events=events)
    assert stats["method"] == "tree" and stats["objects"] == 200
    shots = list(tmp_path.glob("broadphase-rects-*.png"))
    assert len(shots) == 1
    assert f"saved {shots[0]}" in capsys.readouterr().err  # where it went, said
    for k, m in zip(range(7), demo.METHOD_KEYS, strict=True):
        assert demo.run("circles", n=50, headless=True, frames=1,
                        events=[key(pygame.K_0 + k)])["method"] == m


def test_big_counts_draw_by_arrays():
    stats = demo.run("rects", n=demo.ARRAY_DRAW, headless=True, frames=2)
    assert stats["objects"] == demo.ARRAY_DRAW and stats["pairs"] > 0


def test_command_line(tmp_path):
    png = tmp_path / "shot.png"
    assert main(["demo", "--scene", "circles", "--n", "200", "--headless", "--frames", "3",
                 "--screenshot", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_fast_bullets_tunnel_and_swept_pairs_catch_them():
    # at 24 px a frame, bullets of 8 px of different emitters cross between two frames
    # without ever being seen overlapping; the swept pairs hold every such crossing
    sc = demo._Bullets(32)
    sc.fast = sc.swept = True
    r = scenarios.BULLET_RADIUS
    missed = 0
    for _ in range(120):
        sc.update()
        sc.collide("auto")
        missed += sc.missed
        if not sc.tunnelled.any():
            continue
        # every yellow bullet came within 2r of another emitter's during the frame, and
        # was not within 2r of one at the frame's end (closest approach of two linear moves)
        k = np.flatnonzero(sc.tunnelled)
        dp = sc.last[None, :, :] - sc.last[k, None, :]
        dv = (sc.xy - sc.last)[None, :, :] - (sc.xy - sc.last)[k, None, :]
        s = np.clip(-(dp * dv).sum(-1) / np.maximum((dv * dv).sum(-1), 1e-300), 0, 1)
        closest = np.hypot(*(dp + s[..., None] * dv).transpose(2, 0, 1))
        other = sc.emitter[None, :] != sc.emitter[k, None]
        assert ((closest < 2 * r) & other).any(1).all()
        end = np.hypot(*(sc.xy[None, :, :] - sc.xy[k, None, :]).transpose(2, 0, 1))
        assert not ((end < 2 * r) & other).any()
        start = np.hypot(*(sc.last[None, :, :] - sc.last[k, None, :]).transpose(2, 0, 1))
        assert ((closest < 2 * r) & (start >= 2 * r) & other).any(1).all()
    assert missed > 0
    slow = demo._Bullets(32)
    slow.swept = True
    for _ in range(120):
        slow.update()
        slow.collide("auto")
        assert slow.missed == 0  # at a pixel a frame nothing passes between two frames


def test_keys_given_as_text_are_pressed_before_the_first_frame(tmp_path, capsys):
    sc = demo.run("bullets", headless=True, frames=2, keys="FW")["scene"]
    assert sc.fast and sc.swept
    assert demo.run("rects", n=50, headless=True, frames=1, keys="4")["method"] == "tree"
    plain, cells = tmp_path / "plain.png", tmp_path / "cells.png"
    for png, keys in ((plain, ""), (cells, "G")):
        assert main(["demo", "--scene", "rects", "--n", "50", "--headless", "--frames", "1",
                     "--keys", keys, "--screenshot", str(png)]) == 0
    surface = {p: pygame.image.load(str(p)) for p in (plain, cells)}
    shown = {p: sum(tuple(s.get_at((x, y)))[:3] == (120, 170, 255)  # the cells' colour
                    for x in range(100, 700) for y in range(0, 600, 5))
             for p, s in surface.items()}
    assert shown[plain] == 0 < shown[cells]
    with pytest.raises(ValueError, match=r"keys\[1\]: expected a letter, a digit, \+ or -; "
                                         r"found '\?'"):
        demo.run("rects", headless=True, frames=1, keys="G?")


def test_bullets_keys_switch_fast_and_swept():
    stats = demo.run("bullets", headless=True, frames=60,
                     events=[key(pygame.K_f), key(pygame.K_w)])
    sc = stats["scene"]
    assert sc.fast and sc.swept and "swept on" in sc.info()


def test_sight_draws_each_ray_to_its_first_wall(tmp_path):
    png = tmp_path / "sight.png"
    move = pygame.event.Event(pygame.MOUSEMOTION, pos=(300, 200), rel=(0, 0), buttons=(0, 0, 0))
    stats = demo.run("sight", n=90, headless=True, frames=2, events=[move],
                     screenshot=str(png))
    sc = stats["scene"]
    assert stats["objects"] == 90 and 0 < stats["pairs"] <= 90
    eye = sc.eye
    assert np.allclose(eye, [(300 - sc.view.ox) / sc.view.s, 200 / sc.view.s])
    d = sc.directions()
    w = sc.walls
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = (w[None, :, :2] - eye) / d[:, None, :]
        hi = (w[None, :, 2:] - eye) / d[:, None, :]
    enter = np.nan_to_num(np.minimum(lo, hi), nan=-np.inf).max(-1)
    leave = np.nan_to_num(np.maximum(lo, hi), nan=np.inf).min(-1)
    hit = (enter < leave) & (leave > 0)
    t = np.where(hit, np.maximum(enter, 0), np.inf)
    first = np.where(hit.any(1), t.argmin(1), -1)
    np.testing.assert_array_equal(sc.hits, first)
    np.testing.assert_allclose(sc.t[first >= 0], t.min(1)[first >= 0])
    assert png.read_bytes()[:4] == b"\x89PNG"
