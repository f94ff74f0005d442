"""Packages and package data; everything else is in pyproject.toml.

The repository keeps ``notebooks/`` and ``examples/pleak/`` at the top level; the wheel ships
them inside the package as ``garesearch/notebooks`` and ``garesearch/examples/pleak`` (same
relative layout, so ``../examples/pleak`` still resolves from a notebook), for
``garesearch reproduce`` and ``garesearch notebooks`` to use after a plain ``pip install``.
"""

from setuptools import find_namespace_packages, setup

setup(
    packages=[
        *find_namespace_packages(include=["garesearch", "garesearch.*"], exclude=["*.__pycache__"]),
        "garesearch.notebooks",
        "garesearch.examples.pleak",
    ],
    package_dir={
        "garesearch.notebooks": "notebooks",
        "garesearch.examples.pleak": "examples/pleak",
    },
    package_data={
        "garesearch.data": ["*"],
        "garesearch.templates.offline": ["*"],
        "garesearch.notebooks": ["*.ipynb", "README.md"],
        "garesearch.examples.pleak": ["*"],
    },
)
