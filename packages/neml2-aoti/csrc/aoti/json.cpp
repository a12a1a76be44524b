#include "json.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti::json
{
namespace
{
using Document = Value::Document;

const char *
kind_name(const Document & j)
{
  switch (j.type())
  {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "a number";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::object:
      return "an object";
    default:
      return "not a JSON value";
  }
}

[[noreturn]] void
type_error(const std::string & what, const char * expected, const Document & got)
{
  throw FatalError(what + ": expected " + expected + ", got " + kind_name(got));
}

/// "<source>:<line>:<column>: invalid JSON: <what>" for a failure at byte `pos` of `text`.
[[noreturn]] void
syntax_error(const std::string & text,
             const std::string & source,
             std::size_t pos,
             const std::string & what)
{
  std::size_t line = 1, col = 1;
  for (std::size_t k = 0; k < pos && k < text.size(); ++k)
  {
    if (text[k] == '\n')
    {
      ++line;
      col = 1;
    }
    else
      ++col;
  }
  throw FatalError(source + ":" + std::to_string(line) + ":" + std::to_string(col) +
                   ": invalid JSON: " + what);
}

/// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix
/// (the position is reported in the file:line:column form instead).
std::string
reason(const std::string & message)
{
  for (const char * marker : {": syntax error", ": "})
  {
    const auto colon = message.find(marker, message.find(']'));
    if (colon != std::string::npos)
      return message.substr(colon + 2);
  }
  return message;
}

/// Nesting depth guard: a FatalError (carried out of the parser) beyond `max_depth`.
struct TooDeep
{
};
} // namespace

Value::Value(std::shared_ptr<const Document> root, const Document * node)
  : _root(std::move(root)),
    _node(node)
{
}

bool
Value::is_null() const
{
  return _node->is_null();
}

bool
Value::is_object() const
{
  return _node->is_object();
}

bool
Value::is_array() const
{
  return _node->is_array();
}

bool
Value::is_string() const
{
  return _node->is_string();
}

bool
Value::is_number() const
{
  return _node->is_number();
}

bool
Value::is_bool() const
{
  return _node->is_boolean();
}

bool
Value::as_bool(const std::string & what) const
{
  if (!_node->is_boolean())
    type_error(what, "a boolean", *_node);
  return _node->get<bool>();
}

double
Value::as_double(const std::string & what) const
{
  if (!_node->is_number())
    type_error(what, "a number", *_node);
  return _node->get<double>();
}

int64_t
Value::as_int(const std::string & what) const
{
  if (_node->is_number_unsigned())
  {
    const auto u = _node->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<int64_t>::max()))
      throw FatalError(what + ": integer " + std::to_string(u) + " is out of range");
    return static_cast<int64_t>(u);
  }
  if (_node->is_number_integer())
    return _node->get<int64_t>();
  const double d = as_double(what);
  if (std::floor(d) != d || std::fabs(d) > 9.0e15)
    throw FatalError(what + ": expected an integer, got " + std::to_string(d));
  return static_cast<int64_t>(d);
}

std::string
Value::as_string(const std::string & what) const
{
  if (!_node->is_string())
    type_error(what, "a string", *_node);
  return _node->get_ref<const std::string &>();
}

std::vector<Value>
Value::as_array(const std::string & what) const
{
  if (!_node->is_array())
    type_error(what, "an array", *_node);
  std::vector<Value> items;
  items.reserve(_node->size());
  for (const auto & item : *_node)
    items.emplace_back(_root, &item);
  return items;
}

std::vector<std::pair<std::string, Value>>
Value::as_object(const std::string & what) const
{
  if (!_node->is_object())
    type_error(what, "an object", *_node);
  std::vector<std::pair<std::string, Value>> members;
  members.reserve(_node->size());
  for (const auto & [key, item] : _node->items())
    members.emplace_back(key, Value(_root, &item));
  return members;
}

std::optional<Value>
Value::find(const std::string & key) const
{
  if (!_node->is_object())
    return std::nullopt;
  const auto it = _node->find(key);
  if (it == _node->end())
    return std::nullopt;
  return Value(_root, &*it);
}

Value
Value::at(const std::string & key, const std::string & what) const
{
  if (!_node->is_object())
    type_error(what, "an object", *_node);
  auto v = find(key);
  if (!v)
    throw FatalError(what + ": missing key '" + key + "'");
  return *v;
}

Value
parse(const std::string & text, const std::string & source)
{
  const Document::parser_callback_t depth_guard =
      [](int depth, nlohmann::json::parse_event_t, Document &)
  {
    if (depth > max_depth)
      throw TooDeep{};
    return true;
  };
  try
  {
    auto doc = std::make_shared<const Document>(Document::parse(text, depth_guard));
    const Document * root = doc.get();
    return Value(std::move(doc), root);
  }
  catch (const TooDeep &)
  {
    throw FatalError(source + ": invalid JSON: nested deeper than " + std::to_string(max_depth) +
                     " arrays/objects");
  }
  catch (const nlohmann::json::parse_error & e)
  {
    // e.byte: 1-based index of the last byte read (the offending one)
    syntax_error(text, source, e.byte > 0 ? e.byte - 1 : 0, reason(e.what()));
  }
  catch (const nlohmann::json::exception & e)
  {
    // e.g. a number literal too large for a double
    throw FatalError(source + ": invalid JSON: " + reason(e.what()));
  }
}

Value
parse_file(const std::string & path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw FatalError("cannot read '" + path + "' (missing file or no permission)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}
} // namespace neml2::aoti::json
