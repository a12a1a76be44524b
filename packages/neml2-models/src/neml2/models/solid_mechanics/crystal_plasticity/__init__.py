"""Crystal plasticity: slip kinematics, slip rules, strengths, hardening and predictors."""
