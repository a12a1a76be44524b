// NEML2 v3 header path of neml2::aoti::load_model(stub_path, model_name, scheduler): a
// DispatchedModel from the stub `.i` neml2-compile writes. Declared in load_model.h.
#pragma once

#include "neml2/csrc/dispatchers/DispatchedModel.h"
#include "neml2/csrc/dispatchers/WorkScheduler.h"
#include "neml2/csrc/dispatchers/load_model.h"
