# Phase-field fracture of a homogeneous 1-D bar under displacement control (uniaxial strain
# eps_xx, nu = 0 so that uniaxial strain is uniaxial stress and psi = E eps^2 / 2). Energy per
# unit volume
#
#   psi(eps, d) = g(d) psi+(eps) + psi-(eps) + Gc / (c0 l) alpha(d),   g = (1 - d)^2,
#
# AT2: alpha = d^2, c0 = 2 (model `model`, driver `driver`); AT1: alpha = d, c0 = 8/3 (model
# `model_at1`, driver `driver_at1`). The damage d solves the irreversible stationarity condition
# d psi/d d >= 0, d - d~1 >= 0, (d psi/d d)(d - d~1) = 0 (Fischer-Burmeister residual, Newton
# through ImplicitUpdate); the stress is sigma = d psi/d eps = g(d) E eps.
# Load: eps_xx 0 -> 0.12 (t = 1) -> 0 (t = 1.5) -> 0.25 (t = 3): loading, elastic unloading at
# frozen damage, reloading. Closed form on loading (psi = max of E eps^2 / 2 over the history):
#   AT2: d = psi / (psi + Gc / (2 l))
#   AT1: d = 0 for psi <= 3 Gc / (16 l) (eps_c = sqrt(3 Gc / (8 E l))), else 1 - 3 Gc / (16 l psi)
#
# Parameters: E = 1000, Gc = 1, l = 0.1 (e.g. MPa, N/mm, mm): AT2 peak stress at
# eps = sqrt(Gc / (3 E l)) = 0.058; AT1 elastic up to eps_c = sqrt(3 Gc / (8 E l)) = 0.061.
#
#   neml2-run homogeneous_bar.i driver --plot stress.png --plot-x strain_xx --plot-y stress_xx
#   neml2-run homogeneous_bar.i driver --plot damage.png --plot-x strain_xx --plot-y d
#   neml2-run homogeneous_bar.i driver_at1 --csv bar_at1.csv --plot at1.png --plot-x strain_xx \
#     --plot-y stress_xx
nsteps = 120
E = 1000.0
Gc = 1.0
l = 0.1
# Gc / (c0 l): c0 = 2 (AT2), 8/3 (AT1)
Gc_c0l_at2 = 5.0
Gc_c0l_at1 = 3.75

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 3, ${nsteps} + 1, dtype=torch.float64))'
  []
  [strains]
    type = Python
    expr = '''
      t = times.data
      reload = 0.25 * (t - 1.5) / 1.5
      ex = torch.where(t <= 1, 0.12 * t, torch.where(t <= 1.5, 0.12 * (3 - 2 * t), reload))
      e = torch.zeros(t.shape + (6,), dtype=t.dtype)
      e[..., 0] = ex
      result = SR2(e)'''
  []
[]

[Models]
  [strain_energy]
    type = LinearIsotropicStrainEnergyDensity
    coefficients = '${E} 0'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
    active_strain_energy_density = 'psi_a'
    inactive_strain_energy_density = 'psi_i'
  []
  [degradation]
    type = PowerDegradationFunction
    phase = 'd'
    power = 2
  []
  [degraded_energy]
    type = ScalarMultiplication
    from = 'degradation psi_a'
    to = 'psi_e'
  []
  # ---- AT2
  [crack]
    type = CrackGeometricFunctionAT2
    phase = 'd'
  []
  [energy]
    type = ScalarLinearCombination
    from = 'psi_e psi_i crack'
    weights = '1 1 ${Gc_c0l_at2}'
    to = 'psi'
  []
  [total_energy]
    type = ComposedModel
    models = 'strain_energy degradation degraded_energy crack energy'
  []
  # ---- AT1
  [crack_at1]
    type = CrackGeometricFunctionAT1
    phase = 'd'
  []
  [energy_at1]
    type = ScalarLinearCombination
    from = 'psi_e psi_i crack'
    weights = '1 1 ${Gc_c0l_at1}'
    to = 'psi'
  []
  [total_energy_at1]
    type = ComposedModel
    models = 'strain_energy degradation degraded_energy crack_at1 energy_at1'
  []
  # ---- irreversible stationarity: dpsi/dd >= 0, d - d~1 >= 0, complementary
  [increment]
    type = ScalarLinearCombination
    from = 'd d~1'
    weights = '1 -1'
    to = 'd_increment'
  []
  [complementarity]
    type = FBComplementarity
    a = 'dpsi_dd'
    a_inequality = 'GE'
    b = 'd_increment'
    b_inequality = 'GE'
    complementarity = 'd_residual'
  []
  [driving_force]
    type = Normality
    model = 'total_energy'
    function = 'psi'
    from = 'd'
    to = 'dpsi_dd'
  []
  [driving_force_at1]
    type = Normality
    model = 'total_energy_at1'
    function = 'psi'
    from = 'd'
    to = 'dpsi_dd'
  []
  [residual]
    type = ComposedModel
    models = 'driving_force increment complementarity'
  []
  [residual_at1]
    type = ComposedModel
    models = 'driving_force_at1 increment complementarity'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_Scalar = 'd'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'predictor'
  []
  [update_at1]
    type = ImplicitUpdate
    equation_system = 'eq_at1'
    solver = 'newton'
    predictor = 'predictor'
  []
  [stress]
    type = Normality
    model = 'total_energy'
    function = 'psi'
    from = 'strain'
    to = 'stress'
  []
  [stress_at1]
    type = Normality
    model = 'total_energy_at1'
    function = 'psi'
    from = 'strain'
    to = 'stress'
  []
  [model]
    type = ComposedModel
    models = 'update stress'
    additional_outputs = 'd'
  []
  [model_at1]
    type = ComposedModel
    models = 'update_at1 stress_at1'
    additional_outputs = 'd'
  []
[]

[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'd'
  []
  [eq_at1]
    type = NonlinearSystem
    model = 'residual_at1'
    unknowns = 'd'
  []
[]

[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = 1e-12
    rel_tol = 1e-12
    max_its = 50
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
  [driver_at1]
    type = TransientDriver
    model = 'model_at1'
    prescribed_time = 'times'
    prescribed_SR2_names = 'strain'
    prescribed_SR2_values = 'strains'
  []
[]
