# Pyrolysis-style conversion of a solid under constant heating rates (thermogravimetry-like):
# Avrami-Erofeev nucleation-and-growth kinetics with an Arrhenius rate coefficient,
#   da/dt = k(T) (1 - a) (-ln(1 - a))^n,   k(T) = A exp(-Q / (R T)),   T = T0 + beta t,
# integrated implicitly in time (backward Euler, Newton) for two heating rates (batch of 2).
# The conversion degree a starts from a small seed a0 (a = 0 is a fixed point of the law).
# Exact solution (L = -ln(1 - a) obeys dL/dt = k L^n):
#   a(t) = 1 - exp(-L(t)),  L(t) = (L0^(1-n) + (1 - n) int_0^t k(T(s)) ds)^(1/(1-n)),
#   L0 = -ln(1 - a0); the time step error of backward Euler is first order.
# Time in minutes, temperature in K. Run (plots a and its rate a_rate vs time):
#
#   neml2-run examples/chemical_reactions/pyrolysis_avrami.i driver --plot pyrolysis.png --plot-x t --plot-y a,a_rate
nsteps = 240
tend = 60.0
T0 = 450.0
beta1 = 5.0
beta2 = 10.0
A = 5e5
Q = 83144.626
R = 8.3144626
n = 0.5
a0 = 1e-3

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, 2))'
  []
  [temperatures]
    type = Python
    expr = 'Scalar(${T0} + torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64)[:, None] * torch.tensor([${beta1}, ${beta2}], dtype=torch.float64))'
  []
  [seed]
    type = Python
    expr = 'Scalar(torch.full((2,), ${a0}, dtype=torch.float64))'
  []
[]

[Models]
  [k]
    type = ArrheniusParameter
    temperature = 'T'
    reference_value = ${A}
    activation_energy = ${Q}
    ideal_gas_constant = ${R}
  []
  [rate]
    type = AvramiErofeevNucleation
    conversion_degree = 'a'
    reaction_rate = 'a_rate'
    coef = 'k'
    order = ${n}
  []
  [integrate]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'a'
  []
  [residual]
    type = ComposedModel
    models = 'k rate integrate'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_Scalar = 'a'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'predictor'
  []
  [model]
    type = ComposedModel
    models = 'update k rate'
    additional_outputs = 'a'
  []
[]

[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'a'
  []
[]

[Solvers]
  [newton]
    type = NewtonWithLineSearch
    linear_solver = 'lu'
    abs_tol = 1e-12
    rel_tol = 1e-10
  []
  [lu]
    type = DenseLU
  []
[]

[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_Scalar_names = 'T'
    prescribed_Scalar_values = 'temperatures'
    ic_Scalar_names = 'a'
    ic_Scalar_values = 'seed'
  []
[]
