"""Solid-mechanics leaf models (elasticity, kinematics, plasticity, viscoplasticity, crystal
plasticity, ...)."""
