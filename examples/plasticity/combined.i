# Rate-independent J2 plasticity with combined linear isotropic (h = K ep) and linear kinematic
# (X = H Kp) hardening; the consistency conditions f <= 0, flow_rate >= 0, f * flow_rate = 0 are
# a smooth Fischer-Burmeister residual (FBComplementarity). Load: cyclic uniaxial strain, a batch
# of two amplitudes. Unknowns: stress, flow_rate, equivalent plastic strain and Kp.
#
#   neml2-run combined.i driver --csv combined.csv --plot combined.png
#   neml2-run combined.i regression
nsteps = 100
E = 200000.0
nu = 0.3
sy = 200.0
H = 20000.0
K = 10000.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 1, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, 2).clone())'
  []
  [strains]
    type = Python
    expr = '''
      t = times.data
      e = torch.zeros(t.shape + (6,), dtype=t.dtype)
      e[..., 0] = torch.tensor([0.004, 0.008], dtype=t.dtype) * torch.sin(2 * math.pi * t)
      result = SR2(e)'''
  []
[]

[Models]
  [isoharden]
    type = LinearIsotropicHardening
    hardening_modulus = ${K}
  []
  [kinharden]
    type = LinearKinematicHardening
    hardening_modulus = ${H}
  []
  [mandel_stress]
    type = IsotropicMandelStress
    cauchy_stress = 'stress'
  []
  [overstress]
    type = SR2LinearCombination
    from = 'mandel_stress back_stress'
    to = 'overstress'
    weights = '1 -1'
  []
  [vonmises]
    type = SR2Invariant
    invariant_type = 'VONMISES'
    tensor = 'overstress'
    invariant = 'effective_stress'
  []
  [yield_surface]
    type = YieldFunction
    yield_stress = ${sy}
    isotropic_hardening = 'isotropic_hardening'
  []
  [flow]
    type = ComposedModel
    models = 'overstress vonmises yield_surface'
  []
  [normality]
    type = Normality
    model = 'flow'
    function = 'yield_function'
    from = 'mandel_stress back_stress isotropic_hardening'
    to = 'flow_direction kinematic_hardening_direction isotropic_hardening_direction'
  []
  [eprate]
    type = AssociativeIsotropicPlasticHardening
  []
  [integrate_ep]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'equivalent_plastic_strain'
  []
  [Kprate]
    type = AssociativeKinematicPlasticHardening
  []
  [integrate_Kp]
    type = SR2BackwardEulerTimeIntegration
    variable = 'kinematic_plastic_strain'
  []
  [Eprate]
    type = AssociativePlasticFlow
  []
  [Erate]
    type = SR2VariableRate
    variable = 'strain'
  []
  [Eerate]
    type = SR2LinearCombination
    from = 'strain_rate plastic_strain_rate'
    to = 'elastic_strain_rate'
    weights = '1 -1'
  []
  [elasticity]
    type = LinearIsotropicElasticity
    coefficients = '${E} ${nu}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
    strain = 'elastic_strain'
    rate_form = true
  []
  [integrate_stress]
    type = SR2BackwardEulerTimeIntegration
    variable = 'stress'
  []
  [consistency]
    type = FBComplementarity
    a = 'yield_function'
    b = 'flow_rate'
    complementarity = 'flow_rate_residual'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'isoharden kinharden mandel_stress overstress vonmises yield_surface normality eprate Kprate Eprate Erate Eerate elasticity integrate_ep integrate_Kp integrate_stress consistency'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'stress kinematic_plastic_strain'
    unknowns_Scalar = 'flow_rate equivalent_plastic_strain'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq_sys'
    solver = 'newton'
    predictor = 'predictor'
  []
[]

[EquationSystems]
  [eq_sys]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'stress flow_rate equivalent_plastic_strain kinematic_plastic_strain'
  []
[]

[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = 1e-10
    rel_tol = 1e-12
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
  [regression]
    type = TransientRegression
    driver = 'driver'
    reference = 'gold/combined.pt'
  []
[]
