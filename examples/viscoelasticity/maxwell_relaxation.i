# Maxwell element (spring and dashpot in series) composed from a LinearIsotropicElasticity spring
# and a LinearDashpot, integrated with backward Euler (ImplicitUpdate). Relaxation test: the
# strain jumps to a fixed value at the first step and is held; the deviatoric stress relaxes as
# exp(-2 G t / eta) and the volumetric stress as exp(-3 K t / eta).
#
#   neml2-run maxwell_relaxation.i driver
nsteps = 100
tend = 5.0
E = 1000.0
nu = 0.25
eta = 2500.0
abs_tol = 1e-10
rel_tol = 1e-8

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
  [elastic_strain]
    type = SR2LinearCombination
    from = 'strain viscous_strain'
    weights = '1 -1'
    to = 'elastic_strain'
  []
  [spring]
    type = LinearIsotropicElasticity
    strain = 'elastic_strain'
    coefficients = '${E} ${nu}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
  [dashpot]
    type = LinearDashpot
    viscosity = ${eta}
  []
  [integrate]
    type = SR2BackwardEulerTimeIntegration
    variable = 'viscous_strain'
  []
  [residual]
    type = ComposedModel
    models = 'elastic_strain spring dashpot integrate'
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
  [model]
    type = ComposedModel
    models = 'update elastic_strain spring'
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
