# Exponential cohesive law of Salehani and Irani with irreversible damage and a penalty for
# normal penetration, driven by a displacement jump (VecComponents -> MacaulaySplit). The default
# path opens in mode I, unloads to the origin and closes into penetration.
#
#   neml2-run salehani_irani.i driver
nsteps = 60
jump_max = 0.015
dir_n = 1.0
dir_s1 = 0.0
dir_s2 = 0.0
dn0 = 0.005
dt0 = 0.008
Tn = 10.0
Tt = 20.0
Kpen = 1000.0

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
    type = SalehaniIraniTraction
    normal_penetration = 'normal_penetration'
    normal_characteristic_length = ${dn0}
    tangential_characteristic_length = ${dt0}
    normal_strength = ${Tn}
    shear_strength = ${Tt}
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
