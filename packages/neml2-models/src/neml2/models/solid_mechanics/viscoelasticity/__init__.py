"""Linear viscoelasticity: dashpot, Kelvin-Voigt, Zener, Burgers and Wiechert elements."""
