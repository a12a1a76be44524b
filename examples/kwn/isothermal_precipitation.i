# Isothermal precipitation (KWN / Kampmann-Wagner numerical model) from a supersaturated binary
# solid solution: nucleation (classical nucleation theory), growth (SFFK rate with the
# Gibbs-Thomson capillarity term) and dissolution of a precipitate size distribution.
#
# Units: nm, s, J, mol, K (gamma = 2e-19 J/nm^2 = 0.2 J/m^2, V_m = 1e22 nm^3/mol = 1e-5 m^3/mol,
# D = 1 nm^2/s = 1e-18 m^2/s, N0 = 10 nm^-3 = 1e28 m^-3). State: N_b, the number of
# precipitates per nm^3 in radius bin b (nbins bins of width dR from R_lo; the bins are a
# sub-batch axis). Per time step
# (backward Euler + Newton, all bins and the matrix concentration coupled):
#   f   = sum_b (4/3) pi R_b^3 N_b                               (PrecipitateVolumeFraction)
#   x   = (x0 - f xp) / (1 - f)                                  (CurrentConcentration)
#   dg  = R_g T ln(x / x_eq)                                     (IdealSolutionVolumetricDrivingForce)
#   R*  = 2 gamma V_m / dg,  dG* = 16 pi gamma^3 V_m^2 / (3 dg^2) (NucleationBarrierAndCriticalRadius)
#   s   = dx^2 / (D x),  beta* = 4 pi N_a^(4/3) R*^2 / (V_m^(4/3) s), Z = V_m/(2 pi N_a R*^2) sqrt(gamma/(k T))
#   J   = Z beta* N0 exp(-dG* / (k T))                           (NucleationFluxMagnitude)
#   v_b = (dg - 2 gamma V_m / R_b) / (R_b R_g T s)               (SFFKPrecipitationGrowthRate)
#   dN_b/dt = -(F_{b+1/2} - F_{b-1/2}) / dR + J delta_{b0},  F = upwinded v N at the bin edges
# (empty ghost bins on both sides; FiniteVolume* types, DumpInSmallestBin puts the nuclei into
# the smallest bin, whose radius exceeds the initial critical radius).
# Invariants checked by the example's test: solute conservation x0 = x (1 - f) + f xp; as long as
# nothing leaves the radius range, the total number of precipitates equals the time integral of
# J (backward-Euler sum); at early times J equals the CNT steady-state rate of the initial
# solution; at late times x approaches x_eq (and f the lever-rule fraction (x0-x_eq)/(xp-x_eq)
# less the capillarity excess).
#
#   neml2-run examples/kwn/isothermal_precipitation.i driver --plot kwn.png --plot-x t --plot-y volume_fraction,mean_radius
#   neml2-run examples/kwn/isothermal_precipitation.i driver --plot kwn_bins.png --plot-x t --plot-y N --csv kwn.csv
#
# The first plot shows the volume fraction and the mean radius (nm) against time (s): nucleation
# and growth until the matrix is depleted (t ~ 50 s), then slow coarsening (the critical radius
# overtakes the small precipitates, which dissolve). The second shows N_b(t), one line per bin:
# the size distribution moving to larger radii. The CSV has one row per step and bin (column
# 'batch' = bin index b, radius R_b = R_lo + (b + 1/2) dR): the distribution in column N, the
# scalars (t, volume_fraction, current_concentration, driving_force, critical_radius,
# nucleation_flux_magnitude, number_density_total, mean_radius) repeated on every bin row.
nbins = 100
R_lo = 0.5
dR = 0.2
nsteps = 80
T = 700.0
x0 = 0.05
x_eq = 0.01
xp = 0.35
dx = 0.3
D = 1.0
gamma = 2e-19
V_m = 1e22
N_a = 6.02214076e23
k = 1.380649e-23
R_g = 8.314462618
N0 = 10.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.cat([torch.zeros(1, dtype=torch.float64), torch.logspace(-3, 3, ${nsteps}, dtype=torch.float64)]))'
  []
  [temperatures]
    type = Python
    expr = 'Scalar(torch.full((${nsteps} + 1,), ${T}, dtype=torch.float64))'
  []
  [centers]
    type = Python
    expr = 'Scalar(${R_lo} + ${dR} * (torch.arange(${nbins}, dtype=torch.float64) + 0.5)).sub_batch.retag(1)'
  []
  [centers_ext]
    type = Python
    expr = 'Scalar(${R_lo} + ${dR} * (torch.arange(${nbins} + 2, dtype=torch.float64) - 0.5)).sub_batch.retag(1)'
  []
  [edges_ext]
    type = Python
    expr = 'Scalar(${R_lo} + ${dR} * (torch.arange(${nbins} + 3, dtype=torch.float64) - 1.0)).sub_batch.retag(1)'
  []
  [capillarity]
    type = Python
    expr = 'Scalar(-2 * ${gamma} * ${V_m} / (${R_lo} + ${dR} * (torch.arange(${nbins}, dtype=torch.float64) + 0.5))).sub_batch.retag(1)'
  []
  [unit_radius]
    type = Python
    expr = 'Scalar(torch.tensor(3 / (4 * math.pi), dtype=torch.float64) ** (1 / 3))'
  []
  [moment_radius]
    type = Python
    expr = 'Scalar((3 * (${R_lo} + ${dR} * (torch.arange(${nbins}, dtype=torch.float64) + 0.5)) / (4 * math.pi)) ** (1 / 3)).sub_batch.retag(1)'
  []
  [N_initial]
    type = Python
    expr = 'Scalar(torch.zeros(${nbins}, dtype=torch.float64)).sub_batch.retag(1)'
  []
[]

[Models]
  # ---------------------------------------------------------------- matrix thermodynamics
  [volume_fraction]
    type = PrecipitateVolumeFraction
    number_density = 'N'
    radius = centers
  []
  [matrix]
    type = CurrentConcentration
    precipitate_volume_fractions = 'volume_fraction'
    initial_concentration = ${x0}
    precipitate_concentrations = ${xp}
  []
  [driving]
    type = IdealSolutionVolumetricDrivingForce
    current_concentrations = 'current_concentration'
    gas_constant = ${R_g}
    equilibrium_concentrations = ${x_eq}
  []
  [projected]
    type = ProjectedDiffusivitySum
    far_field_concentrations = 'current_concentration'
    concentration_differences = ${dx}
    diffusivities = ${D}
  []
  # ---------------------------------------------------------------- nucleation
  [barrier]
    type = NucleationBarrierAndCriticalRadius
    surface_energy = ${gamma}
    total_gibbs_free_energy_difference = 'driving_force'
    molar_volume = ${V_m}
  []
  [zeldovich]
    type = ZeldovichFactor
    surface_energy = ${gamma}
    molar_volume = ${V_m}
    avogadro_number = ${N_a}
    boltzmann_constant = ${k}
  []
  [kinetic]
    type = KineticFactor
    molar_volume = ${V_m}
    avogadro_number = ${N_a}
  []
  [nucleation]
    type = NucleationFluxMagnitude
    nucleation_site_density = ${N0}
    boltzmann_constant = ${k}
  []
  [nuclei]
    type = DumpInSmallestBin
    magnitude = 'nucleation_flux_magnitude'
    cell_centers = centers
    dumped_source = 'nucleation_source'
  []
  # ---------------------------------------------------------------- growth
  [bin_driving]
    type = ScalarLinearCombination
    from = 'driving_force'
    offset = capillarity
    to = 'bin_driving_force'
  []
  [growth]
    type = SFFKPrecipitationGrowthRate
    radius = centers
    gibbs_free_energy_difference = 'bin_driving_force'
    gas_constant = ${R_g}
  []
  [growth_left]
    type = FiniteVolumeAppendBoundaryCondition
    input = 'growth_rate'
    bc_value = 0
    side = left
  []
  [growth_right]
    type = FiniteVolumeAppendBoundaryCondition
    input = 'growth_rate_with_bc_left'
    bc_value = 0
    side = right
    output = 'growth_rate_ext'
  []
  [edge_velocity]
    type = LinearlyInterpolateToCellEdges
    cell_values = 'growth_rate_ext'
    cell_centers = centers_ext
    cell_edges = edges_ext
    edge_values = 'v_edge'
  []
  # ---------------------------------------------------------------- advection in radius space
  [N_left]
    type = FiniteVolumeAppendBoundaryCondition
    input = 'N'
    bc_value = 0
    side = left
  []
  [N_right]
    type = FiniteVolumeAppendBoundaryCondition
    input = 'N_with_bc_left'
    bc_value = 0
    side = right
    output = 'N_ext'
  []
  [advection]
    type = FiniteVolumeUpwindedAdvectiveFlux
    u = 'N_ext'
    v_edge = 'v_edge'
    flux = 'flux'
  []
  [divergence]
    type = FiniteVolumeGradient
    u = 'flux'
    dx = ${dR}
    grad_u = 'advection_rate'
  []
  [rate]
    type = ScalarLinearCombination
    from = 'advection_rate nucleation_source'
    to = 'N_rate'
  []
  [integrate]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'N'
  []
  [residual]
    type = ComposedModel
    models = 'volume_fraction matrix driving projected barrier zeldovich kinetic nucleation nuclei
              bin_driving growth growth_left growth_right edge_velocity N_left N_right advection
              divergence rate integrate'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_Scalar = 'N'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'predictor'
  []
  # ---------------------------------------------------------------- post-processing
  [number_total]
    type = PrecipitateVolumeFraction
    number_density = 'N'
    radius = unit_radius
    volume_fraction = 'number_density_total'
  []
  [radius_moment]
    type = PrecipitateVolumeFraction
    number_density = 'N'
    radius = moment_radius
    volume_fraction = 'radius_moment'
  []
  [regularized_total]
    type = ScalarLinearCombination
    from = 'number_density_total'
    offset = 1e-300
    to = 'regularized_number_total'
  []
  [mean]
    type = ScalarMultiplication
    from = 'radius_moment regularized_number_total'
    reciprocal = 'false true'
    to = 'mean_radius'
  []
  [model]
    type = ComposedModel
    models = 'update volume_fraction matrix driving projected barrier zeldovich kinetic
              nucleation number_total radius_moment regularized_total mean'
    additional_outputs = 'N volume_fraction current_concentration driving_force critical_radius
                          number_density_total'
  []
[]

[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'N'
  []
[]

[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = 1e-14
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
    prescribed_Scalar_names = 'temperature'
    prescribed_Scalar_values = 'temperatures'
    ic_Scalar_names = 'N'
    ic_Scalar_values = 'N_initial'
  []
[]
