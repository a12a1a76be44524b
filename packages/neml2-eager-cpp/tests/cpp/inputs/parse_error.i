[Models]
  [model]
    type = LinearIsotropicElasticity
    coefficients = '1e5 0.3
  []
[]
