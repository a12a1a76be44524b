#include "json.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti::json
{
namespace
{
const char *
kind_name(Value::Kind k)
{
  switch (k)
  {
    case Value::Kind::Null:
      return "null";
    case Value::Kind::Bool:
      return "a boolean";
    case Value::Kind::Number:
      return "a number";
    case Value::Kind::String:
      return "a string";
    case Value::Kind::Array:
      return "an array";
    case Value::Kind::Object:
      return "an object";
  }
  return "?";
}

[[noreturn]] void
type_error(const std::string & what, const char * expected, Value::Kind got)
{
  throw FatalError(what + ": expected " + expected + ", got " + kind_name(got));
}

class Parser
{
public:
  Parser(const std::string & text, const std::string & source)
    : _s(text),
      _source(source)
  {
  }

  Value document()
  {
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (_i != _s.size())
      fail("unexpected trailing characters after the JSON value");
    return v;
  }

private:
  const std::string & _s;
  const std::string & _source;
  std::size_t _i = 0;

  [[noreturn]] void fail(const std::string & what) const
  {
    std::size_t line = 1, col = 1;
    for (std::size_t k = 0; k < _i && k < _s.size(); ++k)
    {
      if (_s[k] == '\n')
      {
        ++line;
        col = 1;
      }
      else
        ++col;
    }
    throw FatalError(_source + ":" + std::to_string(line) + ":" + std::to_string(col) +
                     ": invalid JSON: " + what);
  }

  void skip_ws()
  {
    while (_i < _s.size() &&
           (_s[_i] == ' ' || _s[_i] == '\t' || _s[_i] == '\n' || _s[_i] == '\r'))
      ++_i;
  }

  char peek() const { return _i < _s.size() ? _s[_i] : '\0'; }

  void expect_literal(const char * lit)
  {
    for (const char * p = lit; *p; ++p, ++_i)
      if (_i >= _s.size() || _s[_i] != *p)
        fail(std::string("invalid literal (expected '") + lit + "')");
  }

  Value value(int depth)
  {
    if (depth > 512)
      fail("nesting deeper than 512 levels");
    if (_i >= _s.size())
      fail("unexpected end of input, expected a value");
    const char c = _s[_i];
    if (c == '{')
      return object(depth);
    if (c == '[')
      return array(depth);
    if (c == '"')
      return Value::make_string(string());
    if (c == 't')
    {
      expect_literal("true");
      return Value::make_bool(true);
    }
    if (c == 'f')
    {
      expect_literal("false");
      return Value::make_bool(false);
    }
    if (c == 'n')
    {
      expect_literal("null");
      return Value::make_null();
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return number();
    fail(std::string("unexpected character '") + c + "'");
  }

  Value object(int depth)
  {
    ++_i; // {
    std::vector<std::pair<std::string, Value>> members;
    skip_ws();
    if (peek() == '}')
    {
      ++_i;
      return Value::make_object(std::move(members));
    }
    while (true)
    {
      skip_ws();
      if (peek() != '"')
        fail("expected a string key in object");
      std::string key = string();
      skip_ws();
      if (peek() != ':')
        fail("expected ':' after object key \"" + key + "\"");
      ++_i;
      skip_ws();
      Value v = value(depth + 1);
      members.emplace_back(std::move(key), std::move(v));
      skip_ws();
      if (peek() == ',')
      {
        ++_i;
        continue;
      }
      if (peek() == '}')
      {
        ++_i;
        return Value::make_object(std::move(members));
      }
      fail("expected ',' or '}' in object");
    }
  }

  Value array(int depth)
  {
    ++_i; // [
    std::vector<Value> items;
    skip_ws();
    if (peek() == ']')
    {
      ++_i;
      return Value::make_array(std::move(items));
    }
    while (true)
    {
      skip_ws();
      items.push_back(value(depth + 1));
      skip_ws();
      if (peek() == ',')
      {
        ++_i;
        continue;
      }
      if (peek() == ']')
      {
        ++_i;
        return Value::make_array(std::move(items));
      }
      fail("expected ',' or ']' in array");
    }
  }

  unsigned hex4()
  {
    unsigned v = 0;
    for (int k = 0; k < 4; ++k, ++_i)
    {
      if (_i >= _s.size())
        fail("unexpected end of input in \\u escape");
      const char c = _s[_i];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= unsigned(c - 'A' + 10);
      else
        fail("invalid hex digit in \\u escape");
    }
    return v;
  }

  static void utf8(std::string & out, unsigned cp)
  {
    if (cp < 0x80)
      out += char(cp);
    else if (cp < 0x800)
    {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    }
    else if (cp < 0x10000)
    {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
    else
    {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string string()
  {
    ++_i; // opening quote
    std::string out;
    while (true)
    {
      if (_i >= _s.size())
        fail("unterminated string");
      const char c = _s[_i];
      if (c == '"')
      {
        ++_i;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        fail("unescaped control character in string");
      if (c != '\\')
      {
        out += c;
        ++_i;
        continue;
      }
      ++_i;
      if (_i >= _s.size())
        fail("unterminated escape in string");
      const char e = _s[_i++];
      switch (e)
      {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
        {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF)
          {
            if (_i + 1 >= _s.size() || _s[_i] != '\\' || _s[_i + 1] != 'u')
              fail("unpaired high surrogate in \\u escape");
            _i += 2;
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF)
              fail("invalid low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          else if (cp >= 0xDC00 && cp <= 0xDFFF)
            fail("unpaired low surrogate in \\u escape");
          utf8(out, cp);
          break;
        }
        default:
          --_i;
          fail(std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  Value number()
  {
    const std::size_t start = _i;
    auto digit = [&] { return _i < _s.size() && _s[_i] >= '0' && _s[_i] <= '9'; };
    if (peek() == '-')
      ++_i;
    if (peek() == '0')
      ++_i;
    else if (digit())
      while (digit())
        ++_i;
    else
      fail("invalid number");
    if (peek() == '.')
    {
      ++_i;
      if (!digit())
        fail("invalid number: expected a digit after '.'");
      while (digit())
        ++_i;
    }
    if (peek() == 'e' || peek() == 'E')
    {
      ++_i;
      if (peek() == '+' || peek() == '-')
        ++_i;
      if (!digit())
        fail("invalid number: expected a digit in the exponent");
      while (digit())
        ++_i;
    }
    const std::string tok = _s.substr(start, _i - start);
    char * end = nullptr;
    const double d = std::strtod(tok.c_str(), &end);
    return Value::make_number(d);
  }
};
} // namespace

bool
Value::as_bool(const std::string & what) const
{
  if (_kind != Kind::Bool)
    type_error(what, "a boolean", _kind);
  return _bool;
}

double
Value::as_double(const std::string & what) const
{
  if (_kind != Kind::Number)
    type_error(what, "a number", _kind);
  return _number;
}

int64_t
Value::as_int(const std::string & what) const
{
  const double d = as_double(what);
  if (std::floor(d) != d || std::fabs(d) > 9.0e15)
    throw FatalError(what + ": expected an integer, got " + std::to_string(d));
  return static_cast<int64_t>(d);
}

const std::string &
Value::as_string(const std::string & what) const
{
  if (_kind != Kind::String)
    type_error(what, "a string", _kind);
  return _string;
}

const std::vector<Value> &
Value::as_array(const std::string & what) const
{
  if (_kind != Kind::Array)
    type_error(what, "an array", _kind);
  return *_array;
}

const std::vector<std::pair<std::string, Value>> &
Value::as_object(const std::string & what) const
{
  if (_kind != Kind::Object)
    type_error(what, "an object", _kind);
  return *_object;
}

const Value *
Value::find(const std::string & key) const
{
  if (_kind != Kind::Object)
    return nullptr;
  for (const auto & [k, v] : *_object)
    if (k == key)
      return &v;
  return nullptr;
}

const Value &
Value::at(const std::string & key, const std::string & what) const
{
  as_object(what);
  const Value * v = find(key);
  if (!v)
    throw FatalError(what + ": missing key '" + key + "'");
  return *v;
}

Value
Value::make_null()
{
  return Value();
}

Value
Value::make_bool(bool b)
{
  Value v;
  v._kind = Kind::Bool;
  v._bool = b;
  return v;
}

Value
Value::make_number(double d)
{
  Value v;
  v._kind = Kind::Number;
  v._number = d;
  return v;
}

Value
Value::make_string(std::string s)
{
  Value v;
  v._kind = Kind::String;
  v._string = std::move(s);
  return v;
}

Value
Value::make_array(std::vector<Value> a)
{
  Value v;
  v._kind = Kind::Array;
  v._array = std::make_shared<std::vector<Value>>(std::move(a));
  return v;
}

Value
Value::make_object(std::vector<std::pair<std::string, Value>> o)
{
  Value v;
  v._kind = Kind::Object;
  v._object = std::make_shared<std::vector<std::pair<std::string, Value>>>(std::move(o));
  return v;
}

Value
parse(const std::string & text, const std::string & source)
{
  return Parser(text, source).document();
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
