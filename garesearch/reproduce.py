"""The main job: reproduce the paper's results (``python -m garesearch reproduce``)."""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m garesearch reproduce", description=__doc__)
    parser.add_argument("--output", default="output", help="folder for the generated files")
    parser.parse_args(argv)
    from .demo import main as demo

    return demo([])
