# Bilinear cohesive law with mixed-mode damage onset (Camanho-Davila) and Benzeggagh-Kenane (BK)
# propagation, composed from the displacement jump: VecComponents -> MacaulaySplit (opening /
# penetration) -> ScalarPNorm (effective and tangential separations) -> ModeMixity ->
# CamanhoDavilaCriticalSeparation -> BenzeggaghKenaneFullSeparation -> BilinearTraction (damage is
# irreversible: damage~1 is carried by the driver). The default path is a pure mode I opening
# into softening, unloading to the origin along the damaged secant and closing into penetration
# (penalty stiffness); set dir_n / dir_s1 / dir_s2 for pure shear or mixed mode.
#
#   neml2-run bilinear_bk.i driver
nsteps = 60
jump_max = 0.015
dir_n = 1.0
dir_s1 = 0.0
dir_s2 = 0.0
K = 1000.0
N = 10.0
S = 20.0
GIc = 0.1
GIIc = 0.4
eta = 2.0

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
  [effective_separation]
    type = ScalarPNorm
    from = 'normal_separation tangential_separation_1 tangential_separation_2'
    to = 'effective_separation'
    exponent = 2
  []
  [tangential_separation]
    type = ScalarPNorm
    from = 'tangential_separation_1 tangential_separation_2'
    to = 'tangential_separation'
    exponent = 2
  []
  [mode_mixity]
    type = ModeMixity
  []
  [critical_separation]
    type = CamanhoDavilaCriticalSeparation
    mode_mixity = 'mode_mixity'
    penalty_stiffness = ${K}
    normal_strength = ${N}
    shear_strength = ${S}
  []
  [full_separation]
    type = BenzeggaghKenaneFullSeparation
    mode_mixity = 'mode_mixity'
    critical_separation = 'critical_separation'
    penalty_stiffness = ${K}
    mode_I_fracture_toughness = ${GIc}
    mode_II_fracture_toughness = ${GIIc}
    shear_strength = ${S}
    eta = ${eta}
  []
  [traction]
    type = BilinearTraction
    normal_penetration = 'normal_penetration'
    penalty_stiffness = ${K}
    critical_separation = 'critical_separation'
    full_separation = 'full_separation'
  []
  [model]
    type = ComposedModel
    models = 'components split effective_separation tangential_separation mode_mixity
              critical_separation full_separation traction'
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
