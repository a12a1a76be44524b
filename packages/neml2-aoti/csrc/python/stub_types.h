// Argument and result types of the bindings that carry the annotation of what they really are.
//
// pybind11 writes each argument's and result's type name into the signatures (and so into the
// `_aoti.pyi` that pybind11-stubgen generates from them). An argument the binding converts itself
// (a mapping of tensors checked with clear messages, a path, a device or dtype given as an object
// or a name) would read `typing.Any`; these types accept any object, exactly as `py::object`
// does, and only name it. Results use pybind11's own typed containers.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/typing.h>
#include <torch/csrc/utils/pybind.h> // at::Tensor's caster, named torch.Tensor

namespace neml2::aoti::python
{
/// The check of an annotated argument: every object is accepted (the binding checks it).
inline bool
any_object(PyObject *)
{
  return true;
}

#define NEML2_ANNOTATED_OBJECT(Name)                                                               \
  class Name : public pybind11::object                                                             \
  {                                                                                                \
  public:                                                                                          \
    PYBIND11_OBJECT_DEFAULT(Name, pybind11::object, any_object)                                    \
  }

/// {variable name: tensor}: a dict or any Mapping.
NEML2_ANNOTATED_OBJECT(TensorMappingArg);
/// TensorMappingArg or None (an empty mapping).
NEML2_ANNOTATED_OBJECT(OptionalTensorMappingArg);
/// A filesystem path: str or os.PathLike.
NEML2_ANNOTATED_OBJECT(PathArg);
/// torch.device, its name, or None (the CPU).
NEML2_ANNOTATED_OBJECT(DeviceArg);
/// torch.dtype, its name, or None (float64).
NEML2_ANNOTATED_OBJECT(DtypeArg);
/// A Workspace or None.
NEML2_ANNOTATED_OBJECT(OptionalWorkspaceArg);

#undef NEML2_ANNOTATED_OBJECT

/// {name: tensor}, in a documented key order.
using TensorDict = pybind11::typing::Dict<pybind11::str, at::Tensor>;
/// {output: {input or parameter: tensor}}.
using TensorBlockDict = pybind11::typing::Dict<pybind11::str, TensorDict>;
} // namespace neml2::aoti::python

namespace pybind11::detail
{
#define NEML2_ANNOTATION(Type, annotation)                                                         \
  template <>                                                                                      \
  struct handle_type_name<neml2::aoti::python::Type>                                               \
  {                                                                                                \
    static constexpr auto name = const_name(annotation);                                           \
  }

NEML2_ANNOTATION(TensorMappingArg, "collections.abc.Mapping[str, torch.Tensor]");
NEML2_ANNOTATION(OptionalTensorMappingArg, "collections.abc.Mapping[str, torch.Tensor] | None");
NEML2_ANNOTATION(PathArg, "str | os.PathLike[str]");
NEML2_ANNOTATION(DeviceArg, "torch.device | str | None");
NEML2_ANNOTATION(DtypeArg, "torch.dtype | str | None");
NEML2_ANNOTATION(OptionalWorkspaceArg, "neml2.aoti._aoti.Workspace | None");

#undef NEML2_ANNOTATION
} // namespace pybind11::detail
