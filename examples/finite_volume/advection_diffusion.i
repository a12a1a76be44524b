# 1-D advection-diffusion du/dt + d(v u - D du/dx)/dx = 0 on 0 < x < L = 1 with Dirichlet ends
# u(0) = 0, u(1) = 1 and u = 0 initially, on a finite-volume mesh of N = 20 interior nodes
# x_i = (i + 1) h, i = 0 .. N - 1 (h = 1/(N + 1)); the two boundary values are appended as ghost
# cells (FiniteVolumeAppendBoundaryCondition), the edge velocity is interpolated from the nodes
# (LinearlyInterpolateToCellEdges), the advective flux is first-order upwind
# (FiniteVolumeUpwindedAdvectiveFlux), the diffusive flux -D du/dx and the divergence are
# FiniteVolumeGradient, and backward Euler (ImplicitUpdate + Newton) integrates in time.
# By t = 5 the profile is steady; with Pe = v L / D = 5 the exact steady solution is
#   u(x) = (exp(Pe x / L) - 1) / (exp(Pe) - 1),
# and the upwind scheme's steady solution is exactly u(x_i) = (r^(i+1) - 1)/(r^(N+1) - 1),
# r = 1 + v h / D (first-order accurate: max error 0.037 at N = 20).
#
#   neml2-run examples/finite_volume/advection_diffusion.i driver --plot u.png --csv u.csv
#
# The CSV has one row per step and cell (column 'batch' = cell index i); the plot shows u(t) of
# every cell (one line per cell) rising to its steady value.
N = 20
h = 0.047619047619047616 # 1 / (N + 1)
v = 1.0
D = 0.2
nsteps = 50
tend = 5.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64))'
  []
  [nodes]
    type = Python
    expr = 'Scalar(torch.linspace(0, 1, ${N} + 2, dtype=torch.float64)).sub_batch.retag(1)'
  []
  [edges]
    type = Python
    expr = 'Scalar(torch.linspace(-${h} / 2, 1 + ${h} / 2, ${N} + 3, dtype=torch.float64)).sub_batch.retag(1)'
  []
  [velocity]
    type = Python
    expr = 'Scalar(torch.full((${N} + 2,), ${v}, dtype=torch.float64)).sub_batch.retag(1)'
  []
  [u0]
    type = Python
    expr = 'Scalar(torch.zeros(${N}, dtype=torch.float64)).sub_batch.retag(1)'
  []
[]

[Models]
  [bc_left]
    type = FiniteVolumeAppendBoundaryCondition
    input = 'u'
    bc_value = 0
    side = left
  []
  [bc_right]
    type = FiniteVolumeAppendBoundaryCondition
    input = 'u_with_bc_left'
    bc_value = 1
    side = right
    output = 'u_ext'
  []
  [edge_velocity]
    type = LinearlyInterpolateToCellEdges
    cell_values = velocity
    cell_centers = nodes
    cell_edges = edges
    edge_values = 'v_edge'
  []
  [advection]
    type = FiniteVolumeUpwindedAdvectiveFlux
    u = 'u_ext'
    v_edge = 'v_edge'
    flux = 'advective_flux'
  []
  [diffusion]
    type = FiniteVolumeGradient
    u = 'u_ext'
    dx = ${h}
    prefactor = ${D}
    grad_u = 'diffusive_flux'
  []
  [total_flux]
    type = ScalarLinearCombination
    from = 'advective_flux diffusive_flux'
    to = 'flux'
  []
  [divergence]
    type = FiniteVolumeGradient
    u = 'flux'
    dx = ${h}
    grad_u = 'u_rate'
  []
  [integrate]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'u'
  []
  [rate]
    type = ComposedModel
    models = 'bc_left bc_right edge_velocity advection diffusion total_flux divergence'
  []
  [residual]
    type = ComposedModel
    models = 'rate integrate'
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
    model = 'residual'
    unknowns = 'u'
  []
[]

[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
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
    ic_Scalar_names = 'u'
    ic_Scalar_values = 'u0'
  []
[]
