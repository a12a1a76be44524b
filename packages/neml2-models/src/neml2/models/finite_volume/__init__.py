"""Finite-volume transport on a 1-D cell axis (the last sub-batch axis of the variables).

Cell-centred fields carry ``N`` cells on their last sub-batch axis; operators that couple
neighbouring cells map ``N`` cells to the ``N - 1`` interior edges (gradient, upwinded flux,
interpolation) or append a boundary cell (``N -> N + 1``). Their Jacobian blocks use the full
layout ``(*B, *S_out, *S_in)``. Sources spread a magnitude over the cell centres.
"""
