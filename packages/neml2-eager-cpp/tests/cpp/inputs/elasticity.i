# Linear isotropic elasticity (a bare forward leaf): stress = C(E, nu) : strain.
[Models]
  [model]
    type = LinearIsotropicElasticity
    coefficients = '1e5 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
[]
