"""The paper's figures: labels where the paper's label files put them, regions of the right
size and shape, byte-identical files from run to run."""

from __future__ import annotations

import itertools
import math
import re
import struct
from collections import Counter

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.patches import FancyArrowPatch
from matplotlib.path import Path as MplPath

from garesearch.app import figures
from garesearch.errors import ParameterError

#: one worker runs this module: its module fixtures draw the figures once
pytestmark = pytest.mark.xdist_group("figures")

# Copied by hand from the paper's label files (\begin{picture}(W,H)(x0,y0) and \put(x,y)); the
# figures draw these labels (the bands with the bars the paper means) inside their regions.
PAPER = {
    "figure1_corner": (
        (1374, 1374, -11, -523),
        [("$a$", 766, 434), ("$X'$", 1036, -376), ("$X$", 226, -286)],
    ),
    "figure2a_andor": (
        (2772, 2454, -11, -1648),
        [
            (r"$x_i - t_i \leq r_i$", 1126, 659),
            (r"$x_j - t_j \leq r_j$", 2746, -556),
            ("$r_j$", 946, -691),
            ("$r_i$", 1441, -376),
            ("$(t_i,t_j)$", 1306, -781),
        ],
    ),
    "figure2b_split": (
        (2322, 2454, -11, -1648),
        [
            (r"$x_j - t_j \leq r_j$", 2296, -556), (r"$x_i - t_i \leq r_i$", 856, 659),
            ("$a$", 991, -151), ("$a$", 1441, -466), ("$(t_i,t_j)$", 1036, -691),
            ("$X'_0$", 586, -556),
            (r"$\hat{X'}_0$", 586, -151), (r"$\hat{X'}_0$", 1441, -151),
            (r"$\hat{X'}_0$", 586, -1096), (r"$\hat{X'}_0$", 1441, -1096),
            ("$X'_1$", 1936, -556), ("$X'_2$", 1081, 299), ("$X'_4$", 991, -1501),
            ("$X'_3$", 91, -556),
            (r"$\hat{X'}_3$", 91, -1096), (r"$\hat{X'}_3$", 91, -151),
            (r"$\hat{X'}_2$", 541, 299), (r"$\hat{X'}_2$", 1441, 299),
            (r"$\hat{X'}_1$", 1891, -151), (r"$\hat{X'}_1$", 1891, -1096),
            (r"$\hat{X'}_4$", 541, -1501), (r"$\hat{X'}_4$", 1441, -1501),
        ],
    ),
}


def shoelace(xy) -> float:
    xy = np.asarray(xy, dtype=float)
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def region_areas(fig) -> dict[str, float]:
    areas: dict[str, float] = {}
    for patch in fig.axes[0].patches:
        gid = patch.get_gid()
        if gid and gid != "dimension":
            areas[gid] = areas.get(gid, 0.0) + shoelace(patch.get_xy())
    return areas


def region_paths(fig, name):
    return [MplPath(p.get_xy()) for p in fig.axes[0].patches if p.get_gid() == name]


@pytest.fixture(scope="module")
def drawn():
    """The figures on an Agg canvas at the PNG's 300 dpi, drawn once: every test measures in
    the same display pixels, whichever of them runs first in a process."""
    out = {name: fun() for name, fun in figures.FIGURES.items()}
    for fig in out.values():
        FigureCanvasAgg(fig)
        fig.set_dpi(300)  # as the PNG is written
        fig.canvas.draw()
    return out


def _with_bars(label: str) -> str:
    """The band labels as the paper means them: |x_i - t_i| <= r_i (its label files omit the bars)."""
    m = re.fullmatch(r"\$x_(\w) - t_\1 \\leq r_\1\$", label)
    return f"$|x_{m[1]} - t_{m[1]}| \\leq r_{m[1]}$" if m else label


def test_band_labels_get_their_bars():
    assert _with_bars(r"$x_i - t_i \leq r_i$") == r"$|x_i - t_i| \leq r_i$"
    assert _with_bars("$X'_0$") == "$X'_0$"


@pytest.mark.parametrize("name", sorted(PAPER))
def test_labels_are_the_papers(drawn, name):
    _, labels = PAPER[name]
    texts = [t for t in drawn[name].texts + drawn[name].axes[0].texts if t.get_gid() == "label"]
    assert Counter(t.get_text() for t in texts) == Counter(_with_bars(s) for s, _, _ in labels)
    for t in texts:
        assert t.get_fontsize() == 12  # the label files' \SetFigFont{12}
        assert not t.get_usetex()


@pytest.mark.parametrize("name", sorted(PAPER))
def test_figure_has_the_pictures_size(drawn, name):
    (w, h, _, _), _ = PAPER[name]
    inch = 72.27 * 65536 / 4144  # picture units (4144 sp) per inch
    np.testing.assert_allclose(drawn[name].get_size_inches(),
                               [1.5 * w / inch, 1.5 * h / inch], rtol=1e-12)
    assert figures.FIGURE_SCALE == 1.5


# ------------------------------------------------------------------------------------------
# labels: clear of each other and of every drawn border, each inside one region
# ------------------------------------------------------------------------------------------
def _label_boxes(fig):
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
        fig.set_dpi(300)  # as the PNG is written
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in fig.axes[0].texts + fig.texts if t.get_gid() == "label"]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts]


def _segments(path, transform, closed):
    out = []
    for poly in transform.transform_path(path).to_polygons(closed_only=False):
        pts = np.asarray(poly, dtype=float)
        if closed and len(pts) > 2 and not np.allclose(pts[0], pts[-1]):
            pts = np.vstack([pts, pts[:1]])
        out += list(itertools.pairwise(pts))
    return out


def _border_points(fig, step=0.5):
    """Points (display pixels) on every drawn line: polygon edges, block and band lines,
    dimension arrows, and the dot at t (as a small disc)."""
    ax = fig.axes[0]
    axbox = ax.get_window_extent()
    segs = []
    for patch in ax.patches:
        if patch.get_linewidth() <= 0 or patch.get_edgecolor()[3] == 0:
            continue
        closed = not isinstance(patch, FancyArrowPatch)
        segs += _segments(patch.get_path(), patch.get_transform(), closed)
    pts = []
    for line in ax.lines:
        xy = line.get_transform().transform(np.column_stack(line.get_data()))
        if line.get_linestyle() not in ("None", "none", ""):
            segs += list(itertools.pairwise(xy))
        if line.get_marker() not in ("None", "none", "", None):
            radius = line.get_markersize() / 72 * fig.dpi / 2
            th = np.linspace(0, 2 * np.pi, 64)
            for x, y in xy:
                pts.append(np.column_stack([x + radius * np.cos(th), y + radius * np.sin(th)]))
                pts.append(np.array([[x, y]]))
    for a, b in segs:
        n = max(2, int(np.hypot(*(b - a)) / step) + 1)
        pts.append(a + np.linspace(0, 1, n)[:, None] * (b - a))
    pts = np.vstack(pts)
    inside = ((pts[:, 0] >= axbox.x0 - 1) & (pts[:, 0] <= axbox.x1 + 1)
              & (pts[:, 1] >= axbox.y0 - 1) & (pts[:, 1] <= axbox.y1 + 1))
    return pts[inside]


def _membership(fig, pts):
    """Which filled regions (and whether the drawing area) each point lies in."""
    ax = fig.axes[0]
    axbox = ax.get_window_extent()
    rows = [(pts[:, 0] >= axbox.x0) & (pts[:, 0] <= axbox.x1)
            & (pts[:, 1] >= axbox.y0) & (pts[:, 1] <= axbox.y1)]
    for patch in ax.patches:
        if not patch.get_fill() or patch.get_facecolor()[3] == 0 or isinstance(patch, FancyArrowPatch):
            continue
        path = patch.get_transform().transform_path(patch.get_path())
        rows.append(path.contains_points(pts) & rows[0])
    return np.array(rows).T


@pytest.mark.parametrize("name", sorted(PAPER))
def test_labels_do_not_overlap_each_other(drawn, name):
    boxes = _label_boxes(drawn[name])
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.overlaps(box_b), f"{name}: {a} overlaps {b}"


@pytest.mark.parametrize("name", sorted(PAPER))
def test_labels_cross_no_border(drawn, name):
    fig = drawn[name]
    pts = _border_points(fig)
    for text, box in _label_boxes(fig):
        hit = ((pts[:, 0] >= box.x0) & (pts[:, 0] <= box.x1)
               & (pts[:, 1] >= box.y0) & (pts[:, 1] <= box.y1))
        assert not hit.any(), f"{name}: a line crosses the label {text} near {pts[hit][0]}"
        # the whole label lies in one region: every point of its box is in the same set of
        # filled regions (a fill changing under a label is a border too)
        gx, gy = np.meshgrid(np.linspace(box.x0, box.x1, 25), np.linspace(box.y0, box.y1, 9))
        member = _membership(fig, np.column_stack([gx.ravel(), gy.ravel()]))
        assert (member == member[0]).all(), f"{name}: the label {text} straddles two regions"


def test_figure2b_region_labels_sit_in_the_region_they_name(drawn):
    fig = drawn["figure2b_split"]
    for text, box in _label_boxes(fig):
        m = re.fullmatch(r"\$(\\hat\{X'\}|X')_(\d)\$", text)
        if not m:
            continue
        region = ("Xhat'_" if m[1].startswith("\\hat") else "X'_") + m[2]
        centre = np.array([[box.x0 + box.x1, box.y0 + box.y1]]) / 2
        paths = [p.get_transform().transform_path(p.get_path())
                 for p in fig.axes[0].patches if p.get_gid() == region]
        assert any(path.contains_points(centre)[0] for path in paths), f"{text} not in {region}"


def test_figure1_labels_sit_in_their_regions(drawn):
    fig = drawn["figure1_corner"]
    boxes = dict(_label_boxes(fig))
    def inside(region, text):
        box = boxes[text]
        centre = np.array([[box.x0 + box.x1, box.y0 + box.y1]]) / 2
        return any(p.get_transform().transform_path(p.get_path()).contains_points(centre)[0]
                   for p in fig.axes[0].patches if p.get_gid() == region)
    assert inside("X'", "$X'$")
    assert inside("X", "$X$") and not inside("ball_a", "$X$")
    assert inside("Xhat_a", "$a$")


# ------------------------------------------------------------------------------------------
# files fit for print: PNG at 300 dpi, PDF with embedded Computer Modern fonts
# ------------------------------------------------------------------------------------------
def _png_info(data: bytes):
    width, height = struct.unpack(">II", data[16:24])
    i = data.index(b"pHYs")
    ppx, ppy, unit = struct.unpack(">IIB", data[i + 4:i + 13])
    return width, height, ppx, ppy, unit


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("figures")
    figures.make_figures(folder)
    return folder


@pytest.mark.parametrize("name", sorted(PAPER))
def test_png_is_at_print_resolution(files, name):
    width, _, ppx, ppy, unit = _png_info((files / f"{name}.png").read_bytes())
    assert unit == 1 and ppx == ppy == round(300 / 0.0254)  # pixels per metre for 300 dpi
    assert width >= (1000 if name != "figure1_corner" else 500)


@pytest.mark.parametrize("name", sorted(PAPER))
def test_pdf_embeds_computer_modern(files, name):
    data = (files / f"{name}.pdf").read_bytes()
    fonts = set(re.findall(rb"/BaseFont /([A-Za-z0-9+\-]+)", data))
    assert fonts, "no fonts in the PDF"
    assert {f.split(b"+")[-1].lower() for f in fonts} <= {b"cmmi10", b"cmr10", b"cmsy10", b"cmex10"}
    descriptors = data.count(b"/Type /FontDescriptor")
    embedded = sum(data.count(k) for k in (b"/FontFile2", b"/FontFile3", b"/FontFile "))
    assert descriptors >= 1 and embedded >= descriptors


def test_picture_to_fraction_maps_the_box_to_the_unit_square():
    pic = (2772, 2454, -11, -1648)
    assert figures.picture_to_fraction(-11, -1648, pic) == (0.0, 0.0)
    assert figures.picture_to_fraction(2761, 806, pic) == (1.0, 1.0)
    assert figures.picture_to_fraction(1375, -421, pic) == (0.5, 0.5)


def test_figure1_corner_regions():
    r, a = 300.0, 800.0
    fig = figures.figure1_corner(r=r, a=a)
    areas = region_areas(fig)
    side = 1352.0
    assert areas["X"] == pytest.approx(side**2)
    # X' and the comparison set are quarter discs / a quarter annulus around the corner
    assert areas["X'"] == pytest.approx(math.pi * r**2 / 4, rel=1e-4)
    assert areas["Xhat_a"] == pytest.approx(math.pi * (a**2 - r**2) / 4, rel=1e-4)
    assert areas["ball_a"] == pytest.approx(math.pi * a**2, rel=1e-4)
    # the corner case: only a quarter of the ball of radius a lies in X
    assert (areas["X'"] + areas["Xhat_a"]) / areas["ball_a"] == pytest.approx(0.25, rel=1e-4)
    # every point of X' and of the comparison set is in X
    lo, hi = region_paths(fig, "X")[0].vertices.min(0), region_paths(fig, "X")[0].vertices.max(0)
    for name in ("X'", "Xhat_a"):
        pts = region_paths(fig, name)[0].vertices
        assert (pts >= lo - 1e-9).all() and (pts <= hi + 1e-9).all()


@pytest.mark.parametrize("r", [(260.0, 200.0), (100.0, 350.0)])
def test_figure2a_and_or_areas_and_membership(r):
    ri, rj = r
    fig = figures.figure2a_andor(r=r)
    areas = region_areas(fig)
    (x0, y0), (x1, y1) = region_paths(fig, "X")[0].vertices.min(0), region_paths(fig, "X")[0].vertices.max(0)
    width, height = x1 - x0, y1 - y0
    assert areas["AND"] == pytest.approx((2 * ri) * (2 * rj), rel=1e-12)
    assert areas["OR"] == pytest.approx(
        (2 * ri) * height + width * (2 * rj) - (2 * ri) * (2 * rj), rel=1e-12
    )
    # membership, from the definitions |x_i - t_i| <= r_i or/and |x_j - t_j| <= r_j
    ti, tj = region_paths(fig, "AND")[0].vertices[:4].mean(0)
    rng = np.random.default_rng(6)
    pts = rng.uniform([x0, y0], [x1, y1], size=(20000, 2))
    in_i = np.abs(pts[:, 0] - ti) <= ri
    in_j = np.abs(pts[:, 1] - tj) <= rj
    np.testing.assert_array_equal(region_paths(fig, "OR")[0].contains_points(pts), in_i | in_j)
    np.testing.assert_array_equal(region_paths(fig, "AND")[0].contains_points(pts), in_i & in_j)


def test_figure2b_blocks_areas_and_membership():
    ri, rj, a = 150.0, 200.0, 600.0
    fig = figures.figure2b_split(r=(ri, rj), a=a)
    areas = region_areas(fig)
    cross = (2 * ri) * (2 * a) + (2 * a) * (2 * rj) - (2 * ri) * (2 * rj)
    assert areas["X'_0"] == pytest.approx(cross, rel=1e-12)
    assert areas["Xhat'_0"] == pytest.approx((2 * a) ** 2 - cross, rel=1e-12)
    for k, half in ((1, rj), (3, rj), (2, ri), (4, ri)):
        assert areas[f"X'_{k}"] == pytest.approx((2 * a) * (2 * half), rel=1e-12)
        assert areas[f"Xhat'_{k}"] == pytest.approx((2 * a) ** 2 - (2 * a) * (2 * half), rel=1e-12)
    # X'_0 is the cross inside the central block around t; X-hat'_0 is the rest of the block
    ti, tj = figures.SPLIT_T
    rng = np.random.default_rng(7)
    pts = rng.uniform([ti - a, tj - a], [ti + a, tj + a], size=(20000, 2))
    cross_pts = (np.abs(pts[:, 0] - ti) <= ri) | (np.abs(pts[:, 1] - tj) <= rj)
    np.testing.assert_array_equal(region_paths(fig, "X'_0")[0].contains_points(pts), cross_pts)
    in_hat = np.zeros(len(pts), bool)
    for path in region_paths(fig, "Xhat'_0"):
        in_hat |= path.contains_points(pts)
    np.testing.assert_array_equal(in_hat, ~cross_pts)


def test_bad_geometry_is_refused():
    with pytest.raises(ParameterError, match="a must satisfy"):
        figures.figure1_corner(r=500, a=400)
    with pytest.raises(ParameterError, match="r_i"):
        figures.figure2a_andor(r=(-1.0, 10.0))
    with pytest.raises(ParameterError, match="r_i, r_j < a"):
        figures.figure2b_split(r=(700.0, 10.0), a=600.0)


def test_files_are_written_and_byte_identical(tmp_path):
    first = figures.make_figures(tmp_path / "one")
    second = figures.make_figures(tmp_path / "two")
    assert sorted(p.name for p in first) == sorted(
        f"{n}.{e}" for n in ("figure1_corner", "figure2a_andor", "figure2b_split")
        for e in ("pdf", "png", "svg")
    )
    for p, q in zip(first, second, strict=True):
        assert p.read_bytes() == q.read_bytes(), p.name
    for p in first:
        data = p.read_bytes()
        if p.suffix == ".pdf":
            assert data.startswith(b"%PDF") and b"CreationDate" not in data
        elif p.suffix == ".png":
            assert data.startswith(b"\x89PNG") and b"Software" not in data
        else:
            assert b"<svg" in data and b"<dc:date>" not in data


def test_command_line(tmp_path, capsys):
    assert figures.main(["--output", str(tmp_path)]) == 0
    assert len(list(tmp_path.iterdir())) == 9
    assert "figure2b_split.svg" in capsys.readouterr().out
