"""Seed 004's model: three ``ScalarVariableRate`` leaves that all compute ``(v - v~1)/(t - t~1)``.

Traced and optimized, the shared ``t - t~1`` must be computed once (common-subexpression
elimination); the jit tests and the ``neml2-inspect --graph`` test count it.
"""

SEED004_INPUT = """
[Models]
  [eq1]
    type = ScalarVariableRate
    variable = 'a'
  []
  [eq2]
    type = ScalarVariableRate
    variable = 'b'
  []
  [eq3]
    type = ScalarVariableRate
    variable = 'c'
  []
  [eq]
    type = ComposedModel
    models = 'eq1 eq2 eq3'
  []
[]
"""
