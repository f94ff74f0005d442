"""One plot style for the notebooks and the paper's figures.

Use :func:`style` as a context manager (or call :func:`apply_style` once in a notebook: every
notebook does, so that their figures share one size, 6 x 3.6 inches at 100 dpi for one panel
and :data:`WIDE`, 9 x 3.6 inches, for two side by side, both readable without scaling in
JupyterLab and in the HTML); :data:`COLORS` names the few colours used everywhere; :func:`mark_optimum`,
:func:`mark_value` and :func:`log_axis` are the small helpers the notebooks share.
Importing this module imports matplotlib (it is loaded lazily by ``garesearch``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import matplotlib as mpl

__all__ = ["COLORS", "RC", "WIDE", "apply_style", "log_axis", "mark_optimum", "mark_value", "style"]

#: Colour names used throughout (colour-blind safe, from the Okabe-Ito palette).
COLORS: dict[str, str] = {
    "guess": "#0072B2",  # X', the correct guesses
    "compare": "#E69F00",  # the comparison set X-hat
    "domain": "#999999",  # the whole space X
    "paper": "#D55E00",  # the paper's construction / printed numbers
    "sound": "#009E73",  # garesearch's sound construction
    "lower": "#CC79A7",  # the lower side (eps_ub)
    "upper": "#56B4E9",  # the upper side (eps_lb)
    "ink": "#000000",
}

#: rcParams of the house style (also what makes the saved figures reproducible).
RC: dict[str, object] = {
    "figure.figsize": (6.0, 3.6),
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": mpl.cycler(
        color=[COLORS[k] for k in ("guess", "compare", "sound", "paper", "lower", "upper")]
    ),
    "legend.frameon": False,
    "lines.linewidth": 1.8,
    "mathtext.fontset": "dejavusans",
    "text.usetex": False,
    "svg.hashsalt": "garesearch",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
}


#: Figure size (inches) of two panels side by side in the notebooks (one panel: the default).
WIDE: tuple[float, float] = (9.0, 3.6)


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Context manager: draw with the house style, restore the previous rcParams after.

    Not in the paper: the one plot style of the notebooks and of the redrawn figures.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> with style():
    ...     fig, ax = plt.subplots()
    """
    with mpl.rc_context(RC):
        yield


def apply_style() -> None:
    """Switch the house style on for the rest of the session (for notebooks).

    Not in the paper: the same rcParams as :func:`style`.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> with mpl.rc_context():  # restores the previous style afterwards
    ...     apply_style()
    ...     mpl.rcParams["savefig.dpi"] == RC["savefig.dpi"]
    True
    """
    mpl.rcParams.update(RC)


def mark_optimum(ax, x: float, y: float, *, label: str | None = None, color: str | None = None,
                 fmt: str = "{x:.4g}, {y:.4g}"):
    """Mark the point ``(x, y)`` on ``ax`` with a dot, dotted guides to the axes and a note.

    Not in the paper: a plotting helper.  The notebooks use it for the radius ``a`` with the
    largest epsilon, which Sec. 3.2 ("take one for which epsilon is the largest") and App. A
    look for.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes to draw on.
    x, y : float
        The point (for example the best radius ``a`` and its epsilon).
    label : str, optional
        Legend entry for the dot.
    color : str, optional
        Default: ``COLORS["ink"]``.
    fmt : str
        Format of the note written next to the dot (``x`` and ``y`` are available).

    Returns
    -------
    matplotlib.lines.Line2D
        The dot.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> dot = mark_optimum(ax, 1.8, 0.539, label="best a")
    >>> [float(v) for v in dot.get_xdata()], [float(v) for v in dot.get_ydata()]
    ([1.8], [0.539])
    """
    color = color or COLORS["ink"]
    ax.axvline(x, color=color, lw=0.8, ls=":", zorder=1)
    ax.axhline(y, color=color, lw=0.8, ls=":", zorder=1)
    (dot,) = ax.plot([x], [y], "o", color=color, ms=6, zorder=5, label=label)
    ax.annotate(fmt.format(x=x, y=y), (x, y), xytext=(6, 6), textcoords="offset points",
                fontsize=8, color=color)
    return dot


def mark_value(ax, y: float, *, label: str, color: str | None = None, ls: str = "--"):
    """Draw a horizontal reference line at ``y`` (for example a number printed in the paper).

    Not in the paper: a plotting helper.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes to draw on.
    y : float
        Height of the line.
    label : str
        Legend entry.
    color : str, optional
        Default: ``COLORS["paper"]``.
    ls : str
        Line style.

    Returns
    -------
    matplotlib.lines.Line2D
        The line.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> list(mark_value(ax, 0.539, label="the paper").get_ydata())
    [0.539, 0.539]
    """
    return ax.axhline(y, color=color or COLORS["paper"], lw=1.0, ls=ls, label=label)


def _plain(value: float, _pos=None) -> str:
    """A tick value as a plain number (0.0002, 0.5, 20)."""
    return f"{value:g}"


def log_axis(ax, axis: str = "x"):
    """Put ``ax``'s ``axis`` on a log scale with readable ticks, after the data are drawn.

    Not in the paper: a plotting helper.  Over at most three decades the labelled ticks are
    1, 2 and 5 times the powers of ten, written as plain numbers; over more, only powers of
    ten (as many as the axis has room for), written :math:`10^k`.  Minor ticks are left unlabelled, so that no two tick labels overprint (matplotlib
    labels minor ticks when the range is short, which crowds them together).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes whose data are already drawn (the range decides the ticks).
    axis : {"x", "y"}
        Which axis.

    Returns
    -------
    matplotlib.axis.Axis
        The axis.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([2e-4, 6e-3], [0, 1])
    >>> ticks = log_axis(ax, "x").get_majorticklocs()
    >>> [f"{t:g}" for t in ticks if 2e-4 <= t <= 6e-3]
    ['0.0002', '0.0005', '0.001', '0.002', '0.005']
    >>> plt.close(fig)
    """
    import math

    from matplotlib.ticker import FuncFormatter, LogFormatterSciNotation, LogLocator, NullFormatter

    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y'; got {axis!r}")
    getattr(ax, f"set_{axis}scale")("log")
    lo, hi = sorted(getattr(ax, f"get_{axis}lim")())
    decades = math.log10(hi / lo) if lo > 0 else math.inf
    which = ax.xaxis if axis == "x" else ax.yaxis
    if decades <= 3:
        which.set_major_locator(LogLocator(base=10.0, subs=(1.0, 2.0, 5.0), numticks=15))
        which.set_major_formatter(FuncFormatter(_plain))
    else:  # powers of ten only, as many as the axis has room for
        which.set_major_locator(LogLocator(base=10.0, subs=(1.0,), numticks="auto"))
        which.set_major_formatter(LogFormatterSciNotation())
    which.set_minor_formatter(NullFormatter())
    return which
