"""Notebook plots that had overlapping or clipped labels: every annotation lies inside its axes,
clear of the title, the legend, the other annotations and the drawn curves."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from garesearch import claims
from garesearch.app.plotting import WIDE, style


@pytest.mark.parametrize("name", ["salary", "ships"])
def test_best_a_labels_sit_inside_the_plot(name):
    with style():
        fig, ax = plt.subplots(figsize=(WIDE[0] / 2, WIDE[1]), layout="constrained")
        claims.plot_epsilon_against_a(name, ax=ax)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        frame = ax.get_window_extent(renderer)
        legend = ax.get_legend().get_window_extent(renderer)
        title = ax.title.get_window_extent(renderer)
        labels = [t for t in ax.texts if t.get_text().startswith("best a")]
        boxes = [t.get_window_extent(renderer) for t in labels]
        curves = [ax.transData.transform(np.column_stack(line.get_data())) for line in ax.lines]
    plt.close(fig)
    assert len(boxes) == 2
    assert not boxes[0].overlaps(boxes[1])
    for text, box in zip(labels, boxes, strict=True):
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, text.get_text()
        assert frame.y0 <= box.y0 and box.y1 <= frame.y1, text.get_text()
        assert not box.overlaps(legend) and not box.overlaps(title), text.get_text()
        for xy in curves:
            hit = (xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)
            assert not hit.any(), text.get_text()
