"""Porous flow: effective saturation, capillary pressure curves, permeability laws and the
advective stress of a fluid-filled, deforming solid skeleton."""
