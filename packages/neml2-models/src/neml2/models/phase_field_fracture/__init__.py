"""Phase-field fracture: crack geometric functions, degradation functions, strain energy density."""
