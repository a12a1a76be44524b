# Types registered by Python extensions: user_ext.py (by path) and eager_user_ext (dotted).
[Models]
  [model]
    type = EagerUserAffine
    a = 0.5
  []
  [dotted]
    type = EagerDottedScale
    a = 4
  []
[]
