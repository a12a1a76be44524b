# Zener (standard linear solid) composed from springs (SR2LinearCombination) and a LinearDashpot:
# an equilibrium spring in parallel with a Maxwell arm, under a strain step held constant.
# Exact response: stress = (E_inf + E_M exp(-E_M t / eta_M)) strain_0.
#
#   neml2-run zener_relaxation_composed.i driver
nsteps = 100
tend = 5.0
abs_tol = 1e-10
rel_tol = 1e-8
E_inf = 400.0
E_M = 600.0
eta_M = 1200.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64))'
  []
  [strains]
    type = Python
    expr = 'SR2(torch.tensor([[0.0] * 6] + [[0.01, -0.002, 0.003, 0.004, 0.0, -0.001]] * ${nsteps}, dtype=torch.float64))'
  []
[]

[Models]
  [equilibrium_spring]
    type = SR2LinearCombination
    from = 'strain'
    weights = '${E_inf}'
    to = 'equilibrium_stress'
  []
  [maxwell_spring]
    type = SR2LinearCombination
    from = 'strain viscous_strain'
    weights = '${E_M} -${E_M}'
    to = 'maxwell_stress'
  []
  [dashpot]
    type = LinearDashpot
    stress = 'maxwell_stress'
    viscosity = ${eta_M}
  []
  [integrate]
    type = SR2BackwardEulerTimeIntegration
    variable = 'viscous_strain'
  []
  [residual]
    type = ComposedModel
    models = 'maxwell_spring dashpot integrate'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'viscous_strain'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'predictor'
  []
  [total]
    type = SR2LinearCombination
    from = 'equilibrium_stress maxwell_stress'
    to = 'stress'
  []
  [model]
    type = ComposedModel
    models = 'update equilibrium_spring maxwell_spring total'
    additional_outputs = 'viscous_strain'
  []
[]

[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'viscous_strain'
  []
[]

[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = ${abs_tol}
    rel_tol = ${rel_tol}
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
    prescribed_SR2_names = 'strain'
    prescribed_SR2_values = 'strains'
  []
[]
