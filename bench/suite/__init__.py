"""The ``nox -s bench`` suite: workloads x routes x batches x threads, physical limits, comparison.

Run ``python -m bench.suite [--quick] [--compare PYTHON]`` from the repository root; see
:mod:`bench.suite._cli` and ``bench/README.md``.
"""
