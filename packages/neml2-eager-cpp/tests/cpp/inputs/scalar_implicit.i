# Backward Euler of x' = -2 x^3 (x^3 = x * x2 * x3 through copies): per element the real root of
# 2 dt x^3 + x - x~1 = 0, dt = t - t~1. The unknown x is also an input (the Newton guess).
[Models]
  [x2]
    type = CopyScalar
    from = 'x'
    to = 'x2'
  []
  [x3]
    type = CopyScalar
    from = 'x'
    to = 'x3'
  []
  [rate]
    type = ScalarMultiplication
    from = 'x x2 x3'
    to = 'x_rate'
    scaling = -2.0
  []
  [integrate]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'x'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'x2 x3 rate integrate'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
  []
[]
[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'x'
  []
[]
[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
  []
  [lu]
    type = DenseLU
  []
[]
