// Typed, error-naming access to metadata.json (private to libneml2.so; never in a public header).
//
// nlohmann_json parses (RFC 8259, object member order kept: the metadata lists variables in
// graph-call order). This layer adds what the artifact contract needs on top:
// - parse errors are FatalErrors "<source>:<line>:<column>: invalid JSON: <what>";
// - nesting deeper than `max_depth` is an error, not a stack overflow;
// - every typed accessor names the value (`what`) in its FatalError on a mismatch.
// A Value is a cheap view that keeps its document alive, so views may be stored and copied freely.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace neml2::aoti::json
{
/// Deepest nesting of arrays and objects a document may have.
constexpr int max_depth = 512;

class Value
{
public:
  using Document = nlohmann::ordered_json;

  /// A view of `node`, a value inside `root`.
  Value(std::shared_ptr<const Document> root, const Document * node);

  bool is_null() const;
  bool is_object() const;
  bool is_array() const;
  bool is_string() const;
  bool is_number() const;
  bool is_bool() const;

  /// Typed accessors; `what` names the value in the FatalError on a type mismatch.
  bool as_bool(const std::string & what) const;
  double as_double(const std::string & what) const;
  /// An integer, or a number with an integral value of magnitude at most 9e15.
  int64_t as_int(const std::string & what) const;
  std::string as_string(const std::string & what) const;
  std::vector<Value> as_array(const std::string & what) const;
  /// The members of an object, in document order.
  std::vector<std::pair<std::string, Value>> as_object(const std::string & what) const;

  /// Object member; nullopt when absent or when this is not an object.
  std::optional<Value> find(const std::string & key) const;
  /// Object member; FatalError "<what>: missing key '<key>'" when absent.
  Value at(const std::string & key, const std::string & what) const;

private:
  std::shared_ptr<const Document> _root;
  const Document * _node;
};

/// Parse a complete JSON text; `source` prefixes error messages (e.g. the file path).
Value parse(const std::string & text, const std::string & source);

/// Read and parse a file; a missing or unreadable file is a FatalError naming it.
Value parse_file(const std::string & path);
} // namespace neml2::aoti::json
