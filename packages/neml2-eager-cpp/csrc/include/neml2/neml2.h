// The NEML2 v2-style C++ authoring API over the cpp-eager route (libneml2_eager.so):
// neml2::load_model -> std::shared_ptr<neml2::Model>, Model::value, printing a model,
// neml2::set_default_dtype. See also neml2/tensors/Scalar.h and neml2/tensors/jit.h.
#pragma once

#include <iostream>

#include "neml2/misc/types.h"
#include "neml2/models/Model.h"
#include "neml2/tensors/Tensor.h"
