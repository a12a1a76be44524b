"""Viscoplasticity: rate laws, static recovery, thermal annealing, Kocks-Mecking."""
