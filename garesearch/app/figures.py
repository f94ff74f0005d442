r"""The paper's three figures, redrawn from computed regions (``python -m garesearch figures``).

- :func:`figure1_corner` -- Fig. 1, "Bad location of :math:`X'`" (Sec. 4.1, uniform prior):
  the true value ``t`` sits in a corner of the domain ``X``, so only part of the ball of
  radius ``a`` around it lies in ``X``.
- :func:`figure2a_andor` -- Fig. 2a (Sec. 4.3): the correct guesses of the AND (central box)
  and of the OR (cross) of two approximations :math:`|x_i - t_i| \le r_i`,
  :math:`|x_j - t_j| \le r_j`.
- :func:`figure2b_split` -- Fig. 2b (Sec. 4.3): :math:`X'` and :math:`\hat X'` split into the
  blocks :math:`X'_0, \hat X'_0` (around ``t``) and :math:`X'_k, \hat X'_k` (the
  neighbouring blocks of side :math:`2a`).

Each function computes its regions as polygons (``*_regions``), draws them, and puts the
paper's labels (those of its label files, with the absolute-value bars that the bands
:math:`|x_i - t_i| \le r_i` mean) inside the region each one names, clear of every border and
of each other.  The geometry is in the label files' picture units (4144 sp); a figure is
:data:`FIGURE_SCALE` times the paper's picture, about a journal column wide, with the labels at
the paper's 12 pt in Computer Modern (matplotlib's ``cm`` mathtext, no LaTeX needed).  Files
are written as PDF (fonts embedded), PNG (:data:`PNG_DPI` dpi) and SVG, byte-identical from run
to run (Agg, fixed metadata, fixed ``svg.hashsalt``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Polygon

from ..errors import ParameterError
from ._commands import OneLineParser
from .plotting import COLORS, style

__all__ = [
    "ANDOR_LABELS",
    "ANDOR_PICTURE",
    "CORNER_LABELS",
    "CORNER_PICTURE",
    "FIGURES",
    "FIGURE_SCALE",
    "PNG_DPI",
    "SPLIT_LABELS",
    "SPLIT_PICTURE",
    "andor_regions",
    "corner_regions",
    "figure1_corner",
    "figure2a_andor",
    "figure2b_split",
    "make_figures",
    "picture_to_fraction",
    "save_figure",
    "split_regions",
]

# ------------------------------------------------------------------------------------------
# Data copied from the paper's label files corner.pdf_t, andor2D.pdf_t and split.pdf_t:
# each has \setlength{\unitlength}{4144sp}, \begin{picture}(W,H)(x0,y0) and one
# \put(x,y){...[lb]...label} per label (left-baseline aligned, 12 pt).
# ------------------------------------------------------------------------------------------
UNIT_SP = 4144
#: picture units per inch: 72.27 pt/in * 65536 sp/pt / 4144 sp
UNITS_PER_INCH = 72.27 * 65536 / UNIT_SP
LABEL_FONTSIZE = 12
#: each figure is drawn at this multiple of the paper's picture size (labels stay at 12 pt):
#: Fig. 2a and 2b come out about a journal column (3.0-3.7 in) wide
FIGURE_SCALE = 1.5
#: resolution of the PNG files (print resolution; Fig. 2a and 2b are then >= 1,000 px wide)
PNG_DPI = 300

#: (W, H, x0, y0) of ``\begin{picture}(W,H)(x0,y0)`` in corner.pdf_t
CORNER_PICTURE = (1374, 1374, -11, -523)
#: (label, x, y) of each ``\put(x,y)`` in corner.pdf_t (as printed; the figures draw these
#: labels, the bands with absolute-value bars, inside the regions they name)
CORNER_LABELS = (
    (r"$a$", 766, 434),
    (r"$X'$", 1036, -376),
    (r"$X$", 226, -286),
)

#: (W, H, x0, y0) in andor2D.pdf_t
ANDOR_PICTURE = (2772, 2454, -11, -1648)
#: (label, x, y) in andor2D.pdf_t
ANDOR_LABELS = (
    (r"$x_i - t_i \leq r_i$", 1126, 659),
    (r"$x_j - t_j \leq r_j$", 2746, -556),
    (r"$r_j$", 946, -691),
    (r"$r_i$", 1441, -376),
    (r"$(t_i,t_j)$", 1306, -781),
)

#: (W, H, x0, y0) in split.pdf_t
SPLIT_PICTURE = (2322, 2454, -11, -1648)
#: (label, x, y) in split.pdf_t
SPLIT_LABELS = (
    (r"$x_j - t_j \leq r_j$", 2296, -556),
    (r"$x_i - t_i \leq r_i$", 856, 659),
    (r"$a$", 991, -151),
    (r"$a$", 1441, -466),
    (r"$(t_i,t_j)$", 1036, -691),
    (r"$X'_0$", 586, -556),
    (r"$\hat{X'}_0$", 586, -151),
    (r"$\hat{X'}_0$", 1441, -151),
    (r"$\hat{X'}_0$", 586, -1096),
    (r"$\hat{X'}_0$", 1441, -1096),
    (r"$X'_1$", 1936, -556),
    (r"$X'_2$", 1081, 299),
    (r"$X'_4$", 991, -1501),
    (r"$X'_3$", 91, -556),
    (r"$\hat{X'}_3$", 91, -1096),
    (r"$\hat{X'}_3$", 91, -151),
    (r"$\hat{X'}_2$", 541, 299),
    (r"$\hat{X'}_1$", 1891, -151),
    (r"$\hat{X'}_4$", 541, -1501),
    (r"$\hat{X'}_2$", 1441, 299),
    (r"$\hat{X'}_1$", 1891, -1096),
    (r"$\hat{X'}_4$", 1441, -1501),
)

# Geometry (in picture units): the regions fill the paper's pictures, and each is large enough
# for its label at 12 pt.
CORNER_SQUARE = (0.0, -512.0, 1352.0)  # lower-left corner and side of the domain X
CORNER_T = (1352.0, -512.0)  # t in the bottom-right corner of X
ANDOR_DOMAIN = (0.0, -1640.0, 2740.0, 620.0)  # x0, y0, x1, y1 of the domain X
ANDOR_T = (1370.0, -600.0)
_CORNER_ANGLE = 120.0  # direction (degrees) of the radius a drawn in Fig. 1
# the labels are set like the paper's (LaTeX, 12 pt): Computer Modern through mathtext, and
# cmr10 (shipped with matplotlib) for any upright text
_FIGURE_RC = {
    "mathtext.fontset": "cm",
    "font.family": "serif",
    "font.serif": ["cmr10"],
    "axes.formatter.use_mathtext": True,
    "pdf.fonttype": 42,
}
SPLIT_T = (1125.0, -500.0)

# the band labels as the paper means them (its label files print them without the bars)
_BAND_I = r"$|x_i - t_i| \leq r_i$"
_BAND_J = r"$|x_j - t_j| \leq r_j$"

Regions = dict[str, list[np.ndarray]]


def picture_to_fraction(x: float, y: float, picture: Sequence[float]) -> tuple[float, float]:
    r"""Map a ``\begin{picture}(W,H)(x0,y0)`` point to figure fractions (Fig. 1, 2a, 2b label files).

    The paper's label files ``corner.pdf_t`` (Fig. 1), ``andor2D.pdf_t`` (Fig. 2a) and
    ``split.pdf_t`` (Fig. 2b) place each label with ``\put(x,y)`` in picture units:

    .. math:: (f_x, f_y) = \left(\frac{x - x_0}{W}, \frac{y - y_0}{H}\right)

    Parameters
    ----------
    x, y : float
        Point in picture units.
    picture : sequence of float
        ``(W, H, x0, y0)`` of the picture.

    Returns
    -------
    tuple of float
        ``(f_x, f_y)``.

    Examples
    --------
    >>> picture_to_fraction(50, 25, (100, 50, 0, 0))
    (0.5, 0.5)
    """
    w, h, x0, y0 = picture
    return (x - x0) / w, (y - y0) / h


# ------------------------------------------------------------------------------------------
# Regions (pure geometry, polygons as (n, 2) arrays of vertices).
# ------------------------------------------------------------------------------------------
def _rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def _arc(center, radius, theta0, theta1, n=181) -> np.ndarray:
    th = np.linspace(theta0, theta1, n)
    return np.column_stack([center[0] + radius * np.cos(th), center[1] + radius * np.sin(th)])


def _cross(cx, cy, hx, hy, x0, y0, x1, y1) -> np.ndarray:
    """The plus-shaped union of the band ``|x - cx| <= hx`` and ``|y - cy| <= hy`` in a box."""
    return np.array(
        [
            [cx - hx, y0], [cx + hx, y0], [cx + hx, cy - hy], [x1, cy - hy],
            [x1, cy + hy], [cx + hx, cy + hy], [cx + hx, y1], [cx - hx, y1],
            [cx - hx, cy + hy], [x0, cy + hy], [x0, cy - hy], [cx - hx, cy - hy],
        ],
        dtype=float,
    )


def _positive(name, value):
    if not (np.isfinite(value) and value > 0):
        raise ParameterError(f"{name} must be a finite number > 0; got {value!r}")


def corner_regions(r: float = 450.0, a: float = 900.0) -> Regions:
    r"""Regions of Fig. 1 (Sec. 4.1, uniform distribution): ``t`` in a corner of ``X``.

    The square ``X``, :math:`X' = \mathcal B(t, r) \cap X` and
    :math:`\hat X'_a = \{x \in X : r < d(x, t) \le a\}` for ``t`` in a corner, and the whole
    ball :math:`\mathcal B(t, a)`, of which only a quarter lies in ``X``.

    Parameters
    ----------
    r, a : float
        Radii in picture units, ``0 < r < a <=`` the side of ``X``.

    Returns
    -------
    dict of list of ndarray
        Polygons (``(n, 2)`` vertex arrays) under the keys ``"X"``, ``"X'"``, ``"Xhat_a"``
        and ``"ball_a"``.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = corner_regions(r=450.0, a=900.0)["X'"][0].T
    >>> area = 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))  # shoelace
    >>> bool(abs(area / (np.pi * 450.0**2 / 4) - 1) < 1e-4)  # a quarter disc: t is in a corner
    True
    """
    _positive("r", r)
    x0, y0, side = CORNER_SQUARE
    if not r < a <= side:
        raise ParameterError(f"a must satisfy r < a <= {side}; got r={r}, a={a}")
    t = CORNER_T
    quarter = (np.pi / 2, np.pi)  # the corner is the bottom-right one: X lies up and left
    guess = np.vstack([[t], _arc(t, r, *quarter)])
    compare = np.vstack([_arc(t, a, *quarter), _arc(t, r, quarter[1], quarter[0])])
    ball = _arc(t, a, 0.0, 2 * np.pi, 721)[:-1]
    return {
        "X": [_rect(x0, y0, x0 + side, y0 + side)],
        "X'": [guess],
        "Xhat_a": [compare],
        "ball_a": [ball],
    }


def andor_regions(r: Sequence[float] = (280.0, 220.0)) -> Regions:
    r"""Regions of Fig. 2a (Sec. 4.3): the correct guesses of an AND and of an OR.

    The domain ``X``, the OR-event (cross) :math:`\{|x_i - t_i| \le r_i\} \cup
    \{|x_j - t_j| \le r_j\}` and the AND-event (box) :math:`\{|x_i - t_i| \le r_i\} \cap
    \{|x_j - t_j| \le r_j\}`.

    Parameters
    ----------
    r : (float, float)
        :math:`(r_i, r_j)` in picture units; the bands must lie inside the domain.

    Returns
    -------
    dict of list of ndarray
        Polygons under the keys ``"X"``, ``"OR"`` and ``"AND"``.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = andor_regions(r=(280.0, 220.0))["AND"][0].T
    >>> bool(0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) == 4 * 280 * 220)  # a box
    True
    """
    ri, rj = (float(v) for v in r)
    _positive("r_i", ri)
    _positive("r_j", rj)
    x0, y0, x1, y1 = ANDOR_DOMAIN
    ti, tj = ANDOR_T
    if not (x0 <= ti - ri and ti + ri <= x1 and y0 <= tj - rj and tj + rj <= y1):
        raise ParameterError(f"r: the bands |x - t| <= r must lie inside the domain; got r={r}")
    return {
        "X": [_rect(x0, y0, x1, y1)],
        "OR": [_cross(ti, tj, ri, rj, x0, y0, x1, y1)],
        "AND": [_rect(ti - ri, tj - rj, ti + ri, tj + rj)],
    }


# block number k of Fig. 2b -> its offset l (in units of 2a) from the central block
SPLIT_BLOCKS = {1: (1, 0), 2: (0, 1), 3: (-1, 0), 4: (0, -1)}


def split_regions(r: Sequence[float] = (250.0, 250.0), a: float = 640.0) -> Regions:
    r"""Regions of Fig. 2b (Sec. 4.3): :math:`X'` and :math:`\hat X'` split into blocks.

    The central block :math:`\prod_i \mathcal B(t_i, a)` is split into :math:`X'_0` (the cross)
    and :math:`\hat X'_0` (its four corners), and each neighbouring block
    :math:`\prod_i \mathcal B(t_i + 2\ell_i a, a)` into :math:`X'_k` (the band of correct
    guesses through it) and :math:`\hat X'_k` (the rest).

    Parameters
    ----------
    r : (float, float)
        :math:`(r_i, r_j)`, each in ``(0, a)``.
    a : float
        Half side of a block (the paper's :math:`a_i = a_j = a`).

    Returns
    -------
    dict of list of ndarray
        Polygons under the keys ``"X'_k"`` and ``"Xhat'_k"``, ``k = 0, ..., 4``.

    Examples
    --------
    >>> regions = split_regions()
    >>> [k for k in regions if k.startswith("X'")]  # the cross and four blocks
    ["X'_0", "X'_1", "X'_2", "X'_3", "X'_4"]
    """
    ri, rj = (float(v) for v in r)
    for name, v in (("r_i", ri), ("r_j", rj), ("a", a)):
        _positive(name, v)
    if not (ri < a and rj < a):
        raise ParameterError(f"r: need r_i, r_j < a; got r={r}, a={a}")
    ti, tj = SPLIT_T
    regions: Regions = {
        "X'_0": [_cross(ti, tj, ri, rj, ti - a, tj - a, ti + a, tj + a)],
        "Xhat'_0": [
            _rect(ti - a, tj - a, ti - ri, tj - rj),
            _rect(ti + ri, tj - a, ti + a, tj - rj),
            _rect(ti - a, tj + rj, ti - ri, tj + a),
            _rect(ti + ri, tj + rj, ti + a, tj + a),
        ],
    }
    for k, (li, lj) in SPLIT_BLOCKS.items():
        cx, cy = ti + 2 * li * a, tj + 2 * lj * a
        bx0, by0, bx1, by1 = cx - a, cy - a, cx + a, cy + a
        if li != 0:  # block beside t: the correct guesses are the horizontal band
            band = _rect(bx0, tj - rj, bx1, tj + rj)
            rest = [_rect(bx0, by0, bx1, tj - rj), _rect(bx0, tj + rj, bx1, by1)]
        else:  # block above or below t: the vertical band
            band = _rect(ti - ri, by0, ti + ri, by1)
            rest = [_rect(bx0, by0, ti - ri, by1), _rect(ti + ri, by0, bx1, by1)]
        regions[f"X'_{k}"] = [band]
        regions[f"Xhat'_{k}"] = rest
    return regions


# ------------------------------------------------------------------------------------------
# Drawing.
# ------------------------------------------------------------------------------------------
def _canvas(picture) -> tuple[Figure, object]:
    w, h, x0, y0 = picture
    fig = Figure(figsize=(w * FIGURE_SCALE / UNITS_PER_INCH, h * FIGURE_SCALE / UNITS_PER_INCH))
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(x0, x0 + w)
    ax.set_ylim(y0, y0 + h)
    ax.set_axis_off()
    return fig, ax


def _put(ax, text: str, x: float, y: float, ha: str = "center", va: str = "center") -> None:
    """A label at the picture point ``(x, y)`` (centred there unless ``ha``/``va`` say)."""
    ax.text(x, y, text, ha=ha, va=va, fontsize=LABEL_FONTSIZE, gid="label", clip_on=False)


def _draw(ax, regions: Regions, name: str, **kw) -> None:
    for poly in regions[name]:
        ax.add_patch(Polygon(poly, closed=True, gid=name, **kw))


def _dimension(ax, start, end) -> None:
    ax.add_patch(
        FancyArrowPatch(start, end, arrowstyle="<|-|>", mutation_scale=6, lw=0.6,
                        color=COLORS["ink"], shrinkA=0, shrinkB=0, gid="dimension")
    )


def figure1_corner(outdir: str | Path | None = None, *, r: float = 450.0, a: float = 900.0) -> Figure:
    """Fig. 1 of the paper, "Bad location of X'" (Sec. 4.1, uniform distribution).

    Parameters
    ----------
    outdir : path, optional
        If given, write ``figure1_corner.{pdf,png,svg}`` there.
    r, a : float
        Radii of :math:`X'` and of the comparison ball, in picture units.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = figure1_corner()  # with outdir=None nothing is written
    >>> len(fig.axes)
    1
    """
    regions = corner_regions(r, a)
    with style(), mpl.rc_context(_FIGURE_RC):
        fig, ax = _canvas(CORNER_PICTURE)
        _draw(ax, regions, "X", facecolor="white", edgecolor=COLORS["ink"], lw=0.8)
        _draw(ax, regions, "Xhat_a", facecolor=COLORS["compare"], alpha=0.35, lw=0)
        _draw(ax, regions, "X'", facecolor=COLORS["guess"], alpha=0.6, edgecolor=COLORS["ink"], lw=0.6)
        _draw(ax, regions, "ball_a", fill=False, edgecolor=COLORS["ink"], lw=0.6, ls="--")
        t = np.array(CORNER_T)
        end = t + a * np.array([np.cos(np.radians(_CORNER_ANGLE)), np.sin(np.radians(_CORNER_ANGLE))])
        _dimension(ax, tuple(t), tuple(end))
        ax.plot(*t, "o", color=COLORS["ink"], ms=2.5, clip_on=False)
        # "a" beside the middle of the radius, X' inside the quarter disc, X in the domain
        # outside the ball
        u = (end - t) / a
        normal = np.array([u[1], -u[0]])  # to the right of the radius, away from the corner
        _put(ax, "$a$", *(t + 0.5 * (r + a) * u + 0.09 * a * normal))
        _put(ax, "$X'$", *(t + 0.55 * r * np.array([-np.cos(np.radians(22)), np.sin(np.radians(22))])))
        x0, y0, side = CORNER_SQUARE
        _put(ax, "$X$", x0 + 0.17 * side, y0 + 0.2 * side)
        if outdir is not None:
            save_figure(fig, "figure1_corner", outdir)
    return fig


def figure2a_andor(outdir: str | Path | None = None, *, r: Sequence[float] = (280.0, 220.0)) -> Figure:
    """Fig. 2a of the paper: correctly guessing the AND and the OR of two approximations (Sec. 4.3).

    Parameters
    ----------
    outdir : path, optional
        If given, write ``figure2a_andor.{pdf,png,svg}`` there.
    r : (float, float)
        :math:`(r_i, r_j)` in picture units.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = figure2a_andor()
    >>> len(fig.axes)
    1
    """
    regions = andor_regions(r)
    ri, rj = r
    ti, tj = ANDOR_T
    with style(), mpl.rc_context(_FIGURE_RC):
        fig, ax = _canvas(ANDOR_PICTURE)
        _draw(ax, regions, "X", facecolor="white", edgecolor=COLORS["ink"], lw=0.8)
        _draw(ax, regions, "OR", facecolor=COLORS["compare"], alpha=0.45, edgecolor=COLORS["ink"], lw=0.6)
        _draw(ax, regions, "AND", facecolor=COLORS["guess"], alpha=0.55, edgecolor=COLORS["ink"], lw=0.6)
        _, _, x1, y1 = ANDOR_DOMAIN
        _dimension(ax, (ti, tj + 0.35 * rj), (ti + ri, tj + 0.35 * rj))
        _dimension(ax, (ti - 0.8 * ri, tj), (ti - 0.8 * ri, tj - rj))
        ax.plot(ti, tj, "o", color=COLORS["ink"], ms=2.5)
        # the band labels outside the domain at the ends of their bands (top, right), r_i above
        # its arrow, r_j beside the box, (t_i, t_j) under t
        _put(ax, _BAND_I, ti, y1 + 30, va="bottom")
        _put(ax, _BAND_J, x1 + 30, tj, ha="left")
        _put(ax, "$r_i$", ti + 0.5 * ri, tj + 0.35 * rj + 70)
        _put(ax, "$r_j$", ti - ri - 80, tj - 0.5 * rj)
        _put(ax, "$(t_i,t_j)$", ti + 40, tj - 0.5 * rj)
        if outdir is not None:
            save_figure(fig, "figure2a_andor", outdir)
    return fig


def figure2b_split(
    outdir: str | Path | None = None, *, r: Sequence[float] = (250.0, 250.0), a: float = 640.0
) -> Figure:
    r"""Fig. 2b of the paper: :math:`X'` and :math:`\hat X'` split into comparable blocks (Sec. 4.3).

    Parameters
    ----------
    outdir : path, optional
        If given, write ``figure2b_split.{pdf,png,svg}`` there.
    r : (float, float)
        :math:`(r_i, r_j)` in picture units, each in ``(0, a)``.
    a : float
        Half side of a block, in picture units.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = figure2b_split()
    >>> len(fig.axes)
    1
    """
    regions = split_regions(r, a)
    ti, tj = SPLIT_T
    with style(), mpl.rc_context(_FIGURE_RC):
        fig, ax = _canvas(SPLIT_PICTURE)
        for name in regions:
            color = COLORS["compare"] if name.startswith("Xhat") else COLORS["guess"]
            _draw(ax, regions, name, facecolor=color, alpha=0.35 if name.startswith("Xhat") else 0.5,
                  edgecolor="none")
        for k in (-3, -1, 1, 3):  # block edges
            ax.axvline(ti + k * a, color=COLORS["ink"], lw=0.8)
            ax.axhline(tj + k * a, color=COLORS["ink"], lw=0.8)
        for v in (ti - r[0], ti + r[0]):
            ax.axvline(v, color=COLORS["ink"], lw=0.5, ls="--")
        for v in (tj - r[1], tj + r[1]):
            ax.axhline(v, color=COLORS["ink"], lw=0.5, ls="--")
        _dimension(ax, (ti, tj), (ti + a, tj))
        _dimension(ax, (ti, tj), (ti, tj + a))
        ax.plot(ti, tj, "o", color=COLORS["ink"], ms=2.5)
        ri, rj = r
        w, h, px0, py0 = SPLIT_PICTURE
        px1, py1 = px0 + w, py0 + h
        # each label at the centre of the visible part of the region it names
        left, right = (px0 + ti - a) / 2, (ti + a + px1) / 2  # blocks 3 and 1
        top, bottom = (tj + a + py1) / 2, (py0 + tj - a) / 2  # blocks 2 and 4
        inner_x = ((ti - a + ti - ri) / 2, (ti + ri + ti + a) / 2)  # corner columns of block 0
        inner_y = ((tj + rj + tj + a) / 2, (tj - a + tj - rj) / 2)  # corner rows of block 0
        for x in inner_x:
            for y in inner_y:
                _put(ax, r"$\hat{X'}_0$", x, y)
        _put(ax, "$X'_0$", inner_x[0], tj)  # the left arm of the cross
        for k, x in ((3, left), (1, right)):
            _put(ax, f"$X'_{k}$", x, tj)
            for y in inner_y:
                _put(ax, rf"$\hat{{X'}}_{k}$", x, y)
        for k, y in ((2, top), (4, bottom)):
            _put(ax, f"$X'_{k}$", ti, y)
            for x in inner_x:
                _put(ax, rf"$\hat{{X'}}_{k}$", x, y)
        _put(ax, "$a$", ti - 0.3 * ri, tj + 0.5 * a)  # left of the vertical arrow
        _put(ax, "$a$", ti + 0.5 * (ri + a), tj + 0.3 * rj)  # above the horizontal one
        _put(ax, "$(t_i,t_j)$", ti, tj - 0.5 * rj)
        _put(ax, _BAND_I, ti, py1 + 30, va="bottom")
        _put(ax, _BAND_J, px1 + 30, tj, ha="left")
        if outdir is not None:
            save_figure(fig, "figure2b_split", outdir)
    return fig


FIGURES: dict[str, Callable[..., Figure]] = {
    "figure1_corner": figure1_corner,
    "figure2a_andor": figure2a_andor,
    "figure2b_split": figure2b_split,
}

_FORMATS = {
    "pdf": {"metadata": {"CreationDate": None, "Creator": "garesearch.figures"}},
    "png": {"metadata": {"Software": None}, "dpi": PNG_DPI},
    "svg": {"metadata": {"Date": None, "Creator": "garesearch.figures"}},
}


def save_figure(fig: Figure, stem: str, outdir: str | Path) -> list[Path]:
    """Write ``fig`` as ``<stem>.pdf``, ``.png`` and ``.svg`` in ``outdir`` (Fig. 1, 2a, 2b).

    The Agg-based canvases are used with fixed metadata (no dates, no software stamp in the
    PNG) and a fixed ``svg.hashsalt``, so that two runs give the same bytes.  The bounding box
    is tight, so that labels which the paper lets stick out of the picture stay visible.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to write.
    stem : str
        File name without extension.
    outdir : path
        Folder, created if missing.

    Returns
    -------
    list of pathlib.Path
        The three files written.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in save_figure(figure2a_andor(), "fig2a", tmp)]
    ['fig2a.pdf', 'fig2a.png', 'fig2a.svg']
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    # fontTools warns about the old timestamps inside the Computer Modern fonts it subsets
    font_log = logging.getLogger("fontTools")
    level = font_log.level
    font_log.setLevel(logging.ERROR)
    try:
        with style(), mpl.rc_context({**_FIGURE_RC, "svg.hashsalt": "garesearch"}):
            for ext, kw in _FORMATS.items():
                path = outdir / f"{stem}.{ext}"
                fig.savefig(path, format=ext, bbox_inches="tight", pad_inches=0.03, **kw)
                paths.append(path)
    finally:
        font_log.setLevel(level)
    return paths


def make_figures(outdir: str | Path = "figures") -> list[Path]:
    """Regenerate all the paper's figures (Fig. 1, 2a, 2b) in ``outdir``.

    Parameters
    ----------
    outdir : path
        Folder for the files; default ``figures``.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     len(make_figures(tmp))  # Fig. 1, 2a, 2b in three formats
    9
    """
    paths: list[Path] = []
    for name, fun in FIGURES.items():
        fun(outdir)
        paths.extend(Path(outdir) / f"{name}.{ext}" for ext in _FORMATS)
    return paths


def main(argv: list[str] | None = None) -> int:
    """``python -m garesearch figures [--output DIR]``: redraw Fig. 1, 2a and 2b.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status, 0.
    """
    parser = OneLineParser(
        prog="python -m garesearch figures",
        description="The paper's three figures (Fig. 1, 2a, 2b), redrawn from computed regions as "
                    "PDF, PNG and SVG, byte-identical from run to run.",
    )
    parser.add_argument("--output", default="figures", help="folder for the figure files (default: figures)")
    args = parser.parse_args(argv)
    for path in make_figures(args.output):
        print(path)
    return 0
