"""Chemical-reaction leaf models: solid-state reaction rate laws of the conversion degree
(Avrami-Erofeev nucleation, contracting geometry), the cylindrical-channel geometry with its
diffusion-limited reaction rate, and the effective volume of a porous multi-phase composite."""
