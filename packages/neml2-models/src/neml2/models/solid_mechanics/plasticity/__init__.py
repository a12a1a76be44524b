"""Plasticity: Mandel stress, yield functions, normality, flow rules and hardening."""
