"""Cohesive traction-separation laws, damage initiation/propagation criteria and mode mixity."""
