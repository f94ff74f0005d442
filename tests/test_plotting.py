"""Plot helpers: log axes whose tick labels are readable (none overprints another)."""

from __future__ import annotations

import doctest

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from garesearch.app import plotting


def _visible_tick_boxes(fig, axis):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    lo, hi = sorted(axis.get_view_interval())
    boxes = []
    for tick in axis.get_major_ticks() + axis.get_minor_ticks():
        label = tick.label1
        if label.get_visible() and label.get_text() and lo <= tick.get_loc() <= hi:
            boxes.append((label.get_text(), label.get_window_extent(renderer)))
    return boxes


@pytest.mark.parametrize(("lo", "hi"), [(2e-4, 6e-3), (0.05, 2.0), (2e-3, 0.3), (1e-9, 1.0),
                                        (0.3, 0.9)])
@pytest.mark.parametrize("axis", ["x", "y"])
def test_log_axis_tick_labels_do_not_overlap(lo, hi, axis):
    with plotting.style():
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.plot([lo, hi], [lo, hi])
        plotting.log_axis(ax, axis)
        which = ax.xaxis if axis == "x" else ax.yaxis
        boxes = _visible_tick_boxes(fig, which)
    plt.close(fig)
    assert len(boxes) >= 2, boxes  # something to read on every range
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.overlaps(box_b), f"{a} overlaps {b}"


def test_matplotlib_alone_overprints_this_range():
    """The case log_axis exists for (notebook 11's salary plot): plain semilogx over
    2e-4..6e-3 labels minor ticks that collide."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.semilogx([2e-4, 6e-3], [0, 1])
    boxes = _visible_tick_boxes(fig, ax.xaxis)
    plt.close(fig)
    assert any(a[1].overlaps(b[1]) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_docstring_examples_run():
    result = doctest.testmod(plotting)
    assert result.attempted >= 3 and result.failed == 0
