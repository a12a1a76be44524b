# Only the lag x~1 declares the 3 sites: the solved x comes back per site although its own
# boundary declaration has none, which the raw boundary cannot express.
!include scalar_implicit.i
[Settings]
  [example_batch_shape]
    x~1 = '(2; 3)'
  []
[]
