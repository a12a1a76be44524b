// route_host: one model of one C++ route, held only as a neml2::aoti::RouteModel, serving requests
// on stdin/stdout (the host of the route-parity suite, tests/parity/_host.py).
//
//   route_host cpp-aoti     <artifact folder>                <float64|float32>
//   route_host cpp-dispatch <stub .i> <model name> <rows>    <float64|float32>
//   route_host cpp-eager    <input file> <model name>        <float64|float32>
//
// cpp-dispatch runs over a SyncScheduler of <rows> rows per chunk, so a larger batch is cut.
// Protocol: after loading, the host says `ready` (or `error <Kind> <message>` and exits 1 or 2).
// Then one request per line, one reply per line. Tensors cross as files of
// torch.save({name: tensor}) / torch::pickle_save (a flat dict; Jacobian blocks are keyed
// "<out> <in>"). [ov] is an optional file of parameter overrides ("-" or absent: none).
//   info                                   ok <json: names, types, shapes, parameters, dtype>
//   forward <in> <y> [ov]                  ok
//   jvp <in> <tangents> <y> <dy> [ov]      ok
//   jacobian <in> <y> <J> [ov]             ok
//   param_jacobian <in> <y> <J> [ov]       ok
//   param_vjp <in> <cotangents> <g> [ov]   ok
//   named_parameters <out>                 ok
//   set_parameter <name> <in>              ok   (<in> holds {name: value})
//   quit                                   ok, then exit 0
// Errors: `error <Kind> <message>` with Kind ConvergenceError, FatalError or other (the message
// on one line: backslash and newline escaped as \\ and \n). Anything the libraries print goes to
// stderr; stdout carries the replies only.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include "neml2/csrc/aoti/Model.h"
#include "neml2/csrc/aoti/RouteModel.h"
#include "neml2/csrc/dispatchers/DispatchedModel.h"
#include "neml2/csrc/dispatchers/WorkScheduler.h"
#include "neml2/csrc/dispatchers/load_model.h"
#include "neml2/csrc/eager/Model.h"

namespace aoti = neml2::aoti;
using aoti::RouteModel;
using aoti::TensorMap;

namespace
{
struct UsageError : std::runtime_error
{
  using std::runtime_error::runtime_error;
};

c10::ScalarType
parse_dtype(const std::string & s)
{
  if (s == "float64")
    return c10::kDouble;
  if (s == "float32")
    return c10::kFloat;
  throw UsageError("dtype must be float64 or float32, got '" + s + "'");
}

/// The model of the route named on the command line, as the interface only.
std::unique_ptr<RouteModel>
load(const std::vector<std::string> & a)
{
  if (a.size() == 3 && a[0] == "cpp-aoti")
    return std::make_unique<aoti::Model>(a[1], c10::Device(c10::kCPU), parse_dtype(a[2]));
  if (a.size() == 5 && a[0] == "cpp-dispatch")
  {
    auto scheduler =
        std::make_shared<aoti::SyncScheduler>(c10::Device(c10::kCPU), std::stoll(a[3]));
    return std::make_unique<aoti::DispatchedModel>(
        aoti::load_model(a[1], a[2], scheduler, parse_dtype(a[4])));
  }
  if (a.size() == 4 && a[0] == "cpp-eager")
  {
    neml2::eager::LoadOptions options;
    options.dtype = parse_dtype(a[3]);
    return std::make_unique<neml2::eager::Model>(a[1], a[2], options);
  }
  throw UsageError("usage: route_host cpp-aoti <artifact> <dtype> | cpp-dispatch <stub> <name> "
                   "<rows> <dtype> | cpp-eager <input file> <name> <dtype>");
}

TensorMap
read_map(const std::string & path)
{
  if (path == "-")
    return {};
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::runtime_error("cannot read '" + path + "'");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                                std::istreambuf_iterator<char>());
  const auto value = torch::jit::pickle_load(bytes);
  if (!value.isGenericDict())
    throw std::runtime_error("'" + path + "' does not hold a dict");
  TensorMap map;
  for (const auto & item : value.toGenericDict())
    map[item.key().toStringRef()] = item.value().toTensor();
  return map;
}

void
write_map(const std::string & path, const TensorMap & map)
{
  c10::Dict<std::string, at::Tensor> dict;
  for (const auto & [name, value] : map)
    dict.insert(name, value);
  const auto bytes = torch::jit::pickle_save(c10::IValue(dict));
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f)
    throw std::runtime_error("cannot write '" + path + "'");
}

/// Jacobian blocks as one flat map keyed "<out> <in>".
void
write_blocks(const std::string & path, const aoti::VariablePairJacobian & J)
{
  TensorMap flat;
  for (const auto & [out, row] : J)
    for (const auto & [in, block] : row)
      flat[out + " " + in] = block;
  write_map(path, flat);
}

std::string
quote(const std::string & s)
{
  std::string r = "\"";
  for (char c : s)
    if (c == '"' || c == '\\')
      r += std::string("\\") + c;
    else if (c == '\n')
      r += "\\n";
    else
      r += c;
  return r + "\"";
}

std::string
json_names(const std::vector<std::string> & names)
{
  std::string r = "[";
  for (std::size_t i = 0; i < names.size(); ++i)
    r += (i ? "," : "") + quote(names[i]);
  return r + "]";
}

std::string
json_shape(const std::vector<int64_t> & shape)
{
  std::string r = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    r += (i ? "," : "") + std::to_string(shape[i]);
  return r + "]";
}

std::string
json_shapes(const aoti::BaseShapes & shapes)
{
  std::string r = "[";
  for (std::size_t i = 0; i < shapes.size(); ++i)
    r += (i ? "," : "") + json_shape(shapes[i]);
  return r + "]";
}

std::string
info(const RouteModel & m)
{
  std::string params = "{";
  bool first = true;
  for (const auto & [name, shape] : m.parameter_base_shapes())
  {
    params += (first ? "" : ",") + quote(name) + ":" + json_shape(shape);
    first = false;
  }
  params += "}";
  const std::string dtype = m.dtype() == c10::kDouble  ? "float64"
                            : m.dtype() == c10::kFloat ? "float32"
                                                       : c10::toString(m.dtype());
  return "{\"input_names\":" + json_names(m.input_names()) +
         ",\"output_names\":" + json_names(m.output_names()) +
         ",\"input_types\":" + json_names(m.input_types()) +
         ",\"output_types\":" + json_names(m.output_types()) +
         ",\"input_base_shapes\":" + json_shapes(m.input_base_shapes()) +
         ",\"output_base_shapes\":" + json_shapes(m.output_base_shapes()) +
         ",\"input_sub_batch_shapes\":" + json_shapes(m.input_sub_batch_shapes()) +
         ",\"output_sub_batch_shapes\":" + json_shapes(m.output_sub_batch_shapes()) +
         ",\"parameter_base_shapes\":" + params + ",\"device\":" + quote(m.device().str()) +
         ",\"dtype\":" + quote(dtype) + "}";
}

/// One request; returns the text after "ok" (empty for most requests).
std::string
serve(RouteModel & m, const std::vector<std::string> & r)
{
  const auto arg = [&](std::size_t i) -> const std::string &
  {
    if (i >= r.size())
      throw UsageError("'" + r[0] + "': missing argument " + std::to_string(i));
    return r[i];
  };
  const auto overrides = [&](std::size_t i) { return i < r.size() ? read_map(r[i]) : TensorMap{}; };
  const std::string & op = r[0];
  if (op == "info")
    return info(m);
  if (op == "forward")
    write_map(arg(2), m.forward(read_map(arg(1)), overrides(3)));
  else if (op == "jvp")
  {
    const auto [y, dy] = m.jvp(read_map(arg(1)), read_map(arg(2)), overrides(5));
    write_map(arg(3), y);
    write_map(arg(4), dy);
  }
  else if (op == "jacobian" || op == "param_jacobian")
  {
    const auto [y, J] = op == "jacobian" ? m.jacobian(read_map(arg(1)), overrides(4))
                                         : m.param_jacobian(read_map(arg(1)), overrides(4));
    write_map(arg(2), y);
    write_blocks(arg(3), J);
  }
  else if (op == "param_vjp")
    write_map(arg(3), m.param_vjp(read_map(arg(1)), read_map(arg(2)), overrides(4)));
  else if (op == "named_parameters")
    write_map(arg(1), m.named_parameters());
  else if (op == "set_parameter")
  {
    const auto values = read_map(arg(2));
    const auto it = values.find(arg(1));
    if (it == values.end())
      throw UsageError("'" + arg(2) + "' holds no entry '" + arg(1) + "'");
    m.set_parameter(arg(1), it->second);
  }
  else
    throw UsageError("unknown request '" + op + "'");
  return "";
}

std::string
one_line(const std::string & s)
{
  std::string r;
  for (char c : s)
    if (c == '\\')
      r += "\\\\";
    else if (c == '\n')
      r += "\\n";
    else
      r += c;
  return r;
}

std::vector<std::string>
split(const std::string & line)
{
  std::istringstream in(line);
  return {std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
}
} // namespace

int
main(int argc, char ** argv)
{
  // Replies go to the original stdout; everything else the process prints goes to stderr.
  const int reply_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE * reply = fdopen(reply_fd, "w");
  const auto send = [&](const std::string & line)
  {
    std::fputs((line + "\n").c_str(), reply);
    std::fflush(reply);
  };
  const auto failure = [&](const std::exception & e, const char * kind)
  { send(std::string("error ") + kind + " " + one_line(e.what())); };

  std::unique_ptr<RouteModel> model;
  try
  {
    model = load({argv + 1, argv + argc});
    send("ready");
  }
  catch (const aoti::ConvergenceError & e)
  {
    failure(e, "ConvergenceError");
    return 1;
  }
  catch (const aoti::Exception & e)
  {
    failure(e, "FatalError");
    return 1;
  }
  catch (const std::exception & e)
  {
    failure(e, "other");
    return 2;
  }

  RouteModel & m = *model;
  std::string line;
  while (std::getline(std::cin, line))
  {
    const auto request = split(line);
    if (request.empty())
      continue;
    if (request[0] == "quit")
    {
      send("ok");
      break;
    }
    try
    {
      const auto text = serve(m, request);
      send(text.empty() ? "ok" : "ok " + text);
    }
    catch (const aoti::ConvergenceError & e)
    {
      failure(e, "ConvergenceError");
    }
    catch (const aoti::Exception & e)
    {
      failure(e, e.recoverable() ? "ConvergenceError" : "FatalError");
    }
    catch (const std::exception & e)
    {
      failure(e, "other");
    }
  }
  return 0;
}
