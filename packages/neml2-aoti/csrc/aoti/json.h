// A small JSON reader for metadata.json (private to libneml2.so; never in a public header).
//
// Full RFC 8259 grammar: objects, arrays, strings with every escape (\uXXXX incl. surrogate
// pairs), numbers, true/false/null. Errors are FatalErrors "<source>:<line>:<column>: <what>".
// Object member order is kept (the metadata lists variables in graph-call order).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace neml2::aoti::json
{
class Value
{
public:
  enum class Kind
  {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object
  };

  Value() = default;

  Kind kind() const { return _kind; }
  bool is_null() const { return _kind == Kind::Null; }
  bool is_object() const { return _kind == Kind::Object; }
  bool is_array() const { return _kind == Kind::Array; }
  bool is_string() const { return _kind == Kind::String; }
  bool is_number() const { return _kind == Kind::Number; }
  bool is_bool() const { return _kind == Kind::Bool; }

  /// Typed accessors; `what` names the value in the FatalError on a type mismatch.
  bool as_bool(const std::string & what) const;
  double as_double(const std::string & what) const;
  int64_t as_int(const std::string & what) const;
  const std::string & as_string(const std::string & what) const;
  const std::vector<Value> & as_array(const std::string & what) const;
  const std::vector<std::pair<std::string, Value>> & as_object(const std::string & what) const;

  /// Object member or nullptr.
  const Value * find(const std::string & key) const;
  /// Object member; FatalError "<what>: missing key '<key>'" when absent.
  const Value & at(const std::string & key, const std::string & what) const;

  static Value make_null();
  static Value make_bool(bool b);
  static Value make_number(double d);
  static Value make_string(std::string s);
  static Value make_array(std::vector<Value> a);
  static Value make_object(std::vector<std::pair<std::string, Value>> o);

private:
  Kind _kind = Kind::Null;
  bool _bool = false;
  double _number = 0.0;
  std::string _string;
  std::shared_ptr<std::vector<Value>> _array;
  std::shared_ptr<std::vector<std::pair<std::string, Value>>> _object;
};

/// Parse a complete JSON text; `source` prefixes error messages (e.g. the file path).
Value parse(const std::string & text, const std::string & source);

/// Read and parse a file; a missing or unreadable file is a FatalError naming it.
Value parse_file(const std::string & path);
} // namespace neml2::aoti::json
