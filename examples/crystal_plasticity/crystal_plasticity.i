# FCC crystal plasticity (Taylor-type: every grain sees the same deformation rate), implicit
# update of elastic strain, slip hardening and lattice orientation (the model of the benchmark's
# taylor.i). Load: tension-type deformation rate D = rate * diag(1, -1/2, -1/2), no spin, to 20 %.
#
#   [Drivers/single_crystals]: three grains with [001], [111] and [123] along the loading axis
#   [Drivers/polycrystal]:     200 grains with uniformly random orientations (fixed seed)
#
#   python single_crystal.py       stress-strain curves and the {111} pole-figure paths
#   python taylor_polycrystal.py   the Taylor average stress over the random grains
#   neml2-run crystal_plasticity.i single_crystals --csv single_crystals.csv
nsteps = 100
rate = 1e-3
tend = 200.0
ngrains = 200

[Tensors]
  [a]
    type = Python
    expr = 'Scalar(torch.tensor(1.0, dtype=torch.float64))'
  []
  [sdirs]
    type = Python
    expr = 'MillerIndex(torch.tensor([1, 1, 0]))'
  []
  [splanes]
    type = Python
    expr = 'MillerIndex(torch.tensor([1, 1, 1]))'
  []
  # single crystals: the crystal direction c turned onto the sample x axis (R c = x) by the
  # smallest rotation, about c x x by the angle between them
  [q_single]
    type = Python
    expr = '''
      c = torch.tensor([[0.0, 0.0, 1.0], [1.0, 1.0, 1.0], [1.0, 2.0, 3.0]], dtype=torch.float64)
      c = c / c.norm(dim=-1, keepdim=True)
      x = torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64).expand(3, 3)
      angle = torch.acos((c * x).sum(-1))
      result = MRP.from_axis_angle(Vec(torch.linalg.cross(c, x)), Scalar(angle))'''
  []
  [q_poly]
    type = Python
    expr = 'MRP.rand(${ngrains}, generator=torch.Generator().manual_seed(2026))'
  []
  [t_single]
    type = Python
    expr = 'Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, 3).clone())'
  []
  [t_poly]
    type = Python
    expr = 'Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, ${ngrains}).clone())'
  []
  [D_single]
    type = Python
    expr = 'SR2(torch.tensor([1.0, -0.5, -0.5, 0.0, 0.0, 0.0], dtype=torch.float64).mul(${rate}).expand(${nsteps} + 1, 3, 6).clone())'
  []
  [D_poly]
    type = Python
    expr = 'SR2(torch.tensor([1.0, -0.5, -0.5, 0.0, 0.0, 0.0], dtype=torch.float64).mul(${rate}).expand(${nsteps} + 1, ${ngrains}, 6).clone())'
  []
  [W_single]
    type = Python
    expr = 'WR2(torch.zeros(${nsteps} + 1, 3, 3, dtype=torch.float64))'
  []
  [W_poly]
    type = Python
    expr = 'WR2(torch.zeros(${nsteps} + 1, ${ngrains}, 3, dtype=torch.float64))'
  []
[]

[Data]
  [crystal_geometry]
    type = CubicCrystal
    lattice_parameter = 'a'
    slip_directions = 'sdirs'
    slip_planes = 'splanes'
  []
[]

[Models]
  [euler_rodrigues]
    type = RotationMatrix
    from = 'orientation'
    to = 'orientation_matrix'
  []
  [elasticity]
    type = LinearIsotropicElasticity
    coefficients = '1e5 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
    strain = 'elastic_strain'
  []
  [resolved_shear]
    type = ResolvedShear
  []
  [elastic_stretch]
    type = ElasticStrainRate
  []
  [plastic_spin]
    type = PlasticVorticity
  []
  [plastic_deformation_rate]
    type = PlasticDeformationRate
  []
  [orientation_rate]
    type = OrientationRate
  []
  [sum_slip_rates]
    type = SumSlipRates
  []
  [slip_rule]
    type = PowerLawSlipRule
    n = 6.0
    gamma0 = 1.0
  []
  [slip_strength]
    type = SingleSlipStrengthMap
    constant_strength = 30.0
  []
  [voce_hardening]
    type = VoceSingleSlipHardeningRule
    initial_slope = 500.0
    saturated_hardening = 10.0
  []
  [integrate_slip_hardening]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'slip_hardening'
  []
  [integrate_elastic_strain]
    type = SR2BackwardEulerTimeIntegration
    variable = 'elastic_strain'
  []
  [integrate_orientation]
    type = WR2ImplicitExponentialTimeIntegration
    variable = 'orientation'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'euler_rodrigues elasticity orientation_rate resolved_shear elastic_stretch plastic_deformation_rate plastic_spin sum_slip_rates slip_rule slip_strength voce_hardening integrate_slip_hardening integrate_elastic_strain integrate_orientation'
  []
[]

[EquationSystems]
  [eq_sys]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'elastic_strain slip_hardening orientation'
  []
[]

[Solvers]
  [newton]
    type = NewtonWithLineSearch
    linesearch_cutback = 2.0
    linesearch_stopping_criteria = 1.0e-3
    max_linesearch_iterations = 5
    linear_solver = 'lu'
  []
  [lu]
    type = DenseLU
  []
[]

[Models]
  [cp_warmup_1]
    type = CrystalPlasticityStrainPredictor
    scale = 0.05
  []
  [cp_warmup_2]
    type = ConstantExtrapolationPredictor
    unknowns_MRP = 'orientation'
    unknowns_Scalar = 'slip_hardening'
  []
  [predictor]
    type = ComposedModel
    models = 'cp_warmup_1 cp_warmup_2'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq_sys'
    solver = 'newton'
    predictor = 'predictor'
  []
  [fix_orientation]
    type = FixOrientation
    input = 'orientation'
    output = 'orientation'
  []
  [model_with_stress]
    type = ComposedModel
    # `fix_orientation` declares `priority="high"` on its output, so the
    # resolver lifts the duplicate-provider error against `model`'s
    # `orientation` and runs fix_orientation last -- its shadow-swapped
    # value is the one returned to the driver.
    models = 'model fix_orientation elasticity'
    additional_outputs = 'elastic_strain'
  []
[]

[Drivers]
  [single_crystals]
    type = TransientDriver
    model = 'model_with_stress'
    prescribed_time = 't_single'
    prescribed_SR2_names = 'deformation_rate'
    prescribed_SR2_values = 'D_single'
    prescribed_WR2_names = 'vorticity'
    prescribed_WR2_values = 'W_single'
    ic_MRP_names = 'orientation'
    ic_MRP_values = 'q_single'
  []
  [polycrystal]
    type = TransientDriver
    model = 'model_with_stress'
    prescribed_time = 't_poly'
    prescribed_SR2_names = 'deformation_rate'
    prescribed_SR2_values = 'D_poly'
    prescribed_WR2_names = 'vorticity'
    prescribed_WR2_values = 'W_poly'
    ic_MRP_names = 'orientation'
    ic_MRP_values = 'q_poly'
  []
[]
