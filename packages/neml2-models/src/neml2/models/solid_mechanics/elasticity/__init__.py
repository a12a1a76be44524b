"""Elasticity: isotropic/cubic stiffness, linear elasticity, strain measures."""
