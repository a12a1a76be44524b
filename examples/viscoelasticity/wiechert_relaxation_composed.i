# Three-arm Wiechert (generalized Maxwell) model composed from springs (SR2LinearCombination)
# and LinearDashpots, under a strain step held constant. Exact response (Prony series):
#   stress = (E_inf + sum_{i=1..3} E_i exp(-E_i t / eta_i)) strain_0.
#
#   neml2-run wiechert_relaxation_composed.i driver
nsteps = 100
tend = 5.0
abs_tol = 1e-10
rel_tol = 1e-8
E_inf = 200.0
E_1 = 800.0
eta_1 = 400.0
E_2 = 300.0
eta_2 = 1500.0
E_3 = 150.0
eta_3 = 3000.0

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
  [spring_1]
    type = SR2LinearCombination
    from = 'strain viscous_strain_1'
    weights = '${E_1} -${E_1}'
    to = 'arm_stress_1'
  []
  [dashpot_1]
    type = LinearDashpot
    stress = 'arm_stress_1'
    viscous_strain_rate = 'viscous_strain_1_rate'
    viscosity = ${eta_1}
  []
  [integrate_1]
    type = SR2BackwardEulerTimeIntegration
    variable = 'viscous_strain_1'
  []
  [spring_2]
    type = SR2LinearCombination
    from = 'strain viscous_strain_2'
    weights = '${E_2} -${E_2}'
    to = 'arm_stress_2'
  []
  [dashpot_2]
    type = LinearDashpot
    stress = 'arm_stress_2'
    viscous_strain_rate = 'viscous_strain_2_rate'
    viscosity = ${eta_2}
  []
  [integrate_2]
    type = SR2BackwardEulerTimeIntegration
    variable = 'viscous_strain_2'
  []
  [spring_3]
    type = SR2LinearCombination
    from = 'strain viscous_strain_3'
    weights = '${E_3} -${E_3}'
    to = 'arm_stress_3'
  []
  [dashpot_3]
    type = LinearDashpot
    stress = 'arm_stress_3'
    viscous_strain_rate = 'viscous_strain_3_rate'
    viscosity = ${eta_3}
  []
  [integrate_3]
    type = SR2BackwardEulerTimeIntegration
    variable = 'viscous_strain_3'
  []
  [residual]
    type = ComposedModel
    models = 'spring_1 dashpot_1 integrate_1 spring_2 dashpot_2 integrate_2 spring_3 dashpot_3 integrate_3'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'viscous_strain_1 viscous_strain_2 viscous_strain_3'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'predictor'
  []
  [total]
    type = SR2LinearCombination
    from = 'equilibrium_stress arm_stress_1 arm_stress_2 arm_stress_3'
    to = 'stress'
  []
  [model]
    type = ComposedModel
    models = 'update equilibrium_spring spring_1 spring_2 spring_3 total'
    additional_outputs = 'viscous_strain_1 viscous_strain_2 viscous_strain_3'
  []
[]

[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'viscous_strain_1 viscous_strain_2 viscous_strain_3'
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
