# scalar_implicit.i with a per-site axis: x and its lag x~1 carry a declared sub-batch of 3 sites
# (crystal-plasticity style); t and t~1 are plain batch. Sites solve independently.
!include scalar_implicit.i
[Settings]
  [example_batch_shape]
    x = '(2; 3)'
  []
[]
