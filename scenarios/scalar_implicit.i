# Backward Euler of the scalar ODE dx/dt = a x^3 (a = -2, the 'scaling' of [rate]):
# residual r = x - x~1 - (t - t~1) a x^3, so each step solves 2 dt x^3 + x - x~1 = 0 (one real
# root). Unknown x (also the warm-start input); givens x~1, t, t~1.
# Compile: neml2-compile scalar_implicit.i --model model -d x: -p implicit_rate.rate.scaling
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
    abs_tol = 1e-12
    rel_tol = 1e-10
  []
  [lu]
    type = DenseLU
  []
[]
