# scalar_implicit.i with substepping: Newton stops after 9 iterations, and a step that fails is
# cut in halves, up to 3 times (max_substepping_level). Backward Euler of dx/dt = a x^3 (a = -2):
# each (sub)step of length h solves 2 h x^3 + x - x_start = 0 (one real root). Large steps from
# the guess x = 1 need more than 9 iterations, so their rows are bisected; the result is then the
# backward Euler integration over the pieces, not the one-step root.
# Compile: neml2-compile scalar_substep.i --model model -d x: -p implicit_rate.rate.scaling
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
    max_substepping_level = 3
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
    max_its = 9
  []
  [lu]
    type = DenseLU
  []
[]
