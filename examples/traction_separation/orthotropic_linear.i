# Linear elastic interface with separate normal / tangential stiffnesses and a penetration
# penalty, driven by a displacement jump (VecComponents -> MacaulaySplit).
#
#   neml2-run orthotropic_linear.i driver
nsteps = 60
jump_max = 0.015
dir_n = 1.0
dir_s1 = 0.5
dir_s2 = 0.0
Kn = 1000.0
Kt = 400.0
Kpen = 5000.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 3, ${nsteps} + 1, dtype=torch.float64))'
  []
  [jumps]
    # opening along (dir_n, dir_s1, dir_s2) up to jump_max at t = 1, unloading to the origin at
    # t = 2, then closing (negative normal jump: penetration) to -0.2 jump_max at t = 3
    type = Python
    expr = '(lambda t: Vec(${jump_max} * torch.where(t <= 2, torch.minimum(t, 2 - t), -0.2 * (t - 2))[:, None] * torch.tensor([${dir_n}, ${dir_s1}, ${dir_s2}], dtype=torch.float64)))(torch.linspace(0, 3, ${nsteps} + 1, dtype=torch.float64))'
  []
[]

[Models]
  [components]
    type = VecComponents
    from = 'displacement_jump'
    to = 'normal_jump tangential_separation_1 tangential_separation_2'
  []
  [split]
    type = MacaulaySplit
    from = 'normal_jump'
    to_positive = 'normal_separation'
    to_negative = 'normal_penetration'
  []
  [traction]
    type = OrthotropicLinearTraction
    normal_penetration = 'normal_penetration'
    normal_stiffness = ${Kn}
    tangential_stiffness = ${Kt}
    penalty_stiffness = ${Kpen}
  []
  [model]
    type = ComposedModel
    models = 'components split traction'
  []
[]

[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_Vec_names = 'displacement_jump'
    prescribed_Vec_values = 'jumps'
  []
[]
