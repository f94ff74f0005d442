"""A short worked demonstration: the paper's cats example (Sec. 6.1) through the public API."""

from __future__ import annotations

from ..attribute import epsilon_for_attribute
from ..bound import epsilon_for_advantage
from ..datasets import COLOURS as COLOUR
from ..datasets import GENDERS as GENDER
from ..priors import Categorical
from ._commands import OneLineParser


def main(argv: list[str] | None = None) -> int:
    """Print epsilon for the cats AND-event and a one-attribute check (Sec. 6.1).

    Examples
    --------
    >>> import contextlib, io
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     status = main([])
    >>> status, out.getvalue().splitlines()[2]  # Sec. 6.1: 0.539
    (0, '  epsilon           0.5390   (paper: 0.539)')
    """
    OneLineParser(prog="python -m garesearch demo", description=__doc__).parse_args(argv)
    joint = Categorical({(g, c): pg * pc for g, pg in GENDER.items() for c, pc in COLOUR.items()})
    delta = 0.1
    res = epsilon_for_attribute(joint, r=0, delta=delta)
    print("Cats, AND-event (guess gender and colour), delta = 0.1  [paper Sec. 6.1]")
    print(f"  worst true value  {res.t}  prior p = {res.p:.3f}")
    print(f"  epsilon           {res.epsilon:.4f}   (paper: 0.539)")
    print(f"  Laplace scale     {res.laplace_scale():.3f}  (paper: 1.86)")
    print(f"  posterior bound   {res.posterior_bound():.4f} = p + delta")
    print(f"  Eq. (main) at p = 0.2 directly: {epsilon_for_advantage(delta=delta, p=0.2):.4f}")
    return 0
