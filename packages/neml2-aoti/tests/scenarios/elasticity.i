# Linear isotropic elasticity, strain (SR2) -> stress (SR2). Promotable parameters: model.E,
# model.nu. Compile: neml2-compile elasticity.i --model model -p model.E -d stress:strain
[Models]
  [model]
    type = LinearIsotropicElasticity
    coefficients = '1e3 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
[]
