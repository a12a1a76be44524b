# y = a x + 1 with a type registered by v3_ext.py (load it first: --load v3_ext.py).
[Models]
  [model]
    type = V3HostAffine
    variable = x
    result = y
    a = 0.5
  []
[]
