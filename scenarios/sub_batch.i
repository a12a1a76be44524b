# A forward model with a per-site axis (crystal-plasticity style): x and y = -2 x^2 carry a
# declared sub-batch of 3 sites, while strain -> stress (linear isotropic elasticity) is plain
# batch. dy/dx is site-diagonal: its block is (*B, 3), entry -4 x per site; dy/dscaling is x^2.
# Compile: neml2-compile sub_batch.i --model model -p elastic.E -p square.scaling
#          -d stress:strain -d y:x -d stress:elastic.E -d y:square.scaling
[Settings]
  [example_batch_shape]
    x = '(2; 3)'
    y = '(2; 3)'
  []
[]

[Models]
  [x2]
    type = CopyScalar
    from = 'x'
    to = 'x2'
  []
  [square]
    type = ScalarMultiplication
    from = 'x x2'
    to = 'y'
    scaling = -2.0
  []
  [elastic]
    type = LinearIsotropicElasticity
    coefficients = '1e3 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
  [model]
    type = ComposedModel
    models = 'x2 square elastic'
  []
[]
