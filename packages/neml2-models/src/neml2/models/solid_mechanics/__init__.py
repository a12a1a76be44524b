"""Solid-mechanics leaf models (elasticity, kinematics, plasticity, viscoplasticity, ...)."""
