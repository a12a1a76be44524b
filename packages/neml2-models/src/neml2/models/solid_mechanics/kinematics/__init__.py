"""Kinematics: eigenstrains and volume-change deformation Jacobians."""
