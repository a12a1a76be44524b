// load_model: a minimal reader of the neml2-compile HIT stub (only block structure and key = value
// pairs; values quoted with ' or " may span lines) and the DispatchedModel it names.
#include "neml2/csrc/dispatchers/load_model.h"

#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/guard.h"

namespace neml2::aoti
{
namespace
{
struct Token
{
  enum Kind
  {
    Header,
    Word,
    Equals,
    Quoted
  } kind;
  std::string text;
  int line;
};

[[noreturn]] void
fail(const std::filesystem::path & file, int line, const std::string & what)
{
  throw FatalError(file.string() + ":" + std::to_string(line) + ": " + what);
}

std::vector<Token>
tokenize(const std::filesystem::path & file, const std::string & text)
{
  std::vector<Token> tokens;
  int line = 1;
  std::size_t i = 0;
  const auto n = text.size();
  while (i < n)
  {
    const char c = text[i];
    if (c == '\n')
      ++line, ++i;
    else if (std::isspace(static_cast<unsigned char>(c)))
      ++i;
    else if (c == '#')
      while (i < n && text[i] != '\n')
        ++i;
    else if (c == '[')
    {
      const auto close = text.find_first_of("]\n", i);
      if (close == std::string::npos || text[close] != ']')
        fail(file, line, "unterminated block header '[' ");
      tokens.push_back({Token::Header, text.substr(i + 1, close - i - 1), line});
      i = close + 1;
    }
    else if (c == '=')
      tokens.push_back({Token::Equals, "=", line}), ++i;
    else if (c == '\'' || c == '"')
    {
      const int start = line;
      const auto close = text.find(c, i + 1);
      if (close == std::string::npos)
        fail(file, start, std::string("unterminated ") + c + "quoted value");
      const auto value = text.substr(i + 1, close - i - 1);
      for (char v : value)
        line += v == '\n';
      tokens.push_back({Token::Quoted, value, start});
      i = close + 1;
    }
    else
    {
      const auto end = text.find_first_of(" \t\r\n=[#'\"", i);
      const auto stop = end == std::string::npos ? n : end;
      tokens.push_back({Token::Word, text.substr(i, stop - i), line});
      i = stop;
    }
  }
  return tokens;
}

/// One parameter: its value and the line it was set on.
struct Entry
{
  std::string value;
  int line;
};

/// Every key = value of the file, keyed by the full block path ("Models/name") and the key.
struct Stub
{
  std::map<std::string, std::map<std::string, Entry>> blocks;
  std::map<std::string, int> block_lines;
};

std::string
join(const std::vector<std::string> & path)
{
  std::string out;
  for (const auto & part : path)
    out += (out.empty() ? "" : "/") + part;
  return out;
}

Stub
parse(const std::filesystem::path & file, const std::string & text)
{
  Stub stub;
  std::vector<std::vector<std::string>> stack; // each header may push several path parts
  std::vector<std::string> path;
  const auto tokens = tokenize(file, text);
  for (std::size_t k = 0; k < tokens.size(); ++k)
  {
    const auto & t = tokens[k];
    if (t.kind == Token::Header)
    {
      std::string h = t.text;
      if (h.empty() || h == "../")
      {
        if (stack.empty())
          fail(file, t.line, "'[" + h + "]' closes a block that was never opened");
        path.resize(path.size() - stack.back().size());
        stack.pop_back();
        continue;
      }
      if (h.rfind("./", 0) == 0)
        h = h.substr(2);
      std::vector<std::string> parts;
      std::stringstream ss(h);
      for (std::string part; std::getline(ss, part, '/');)
        if (!part.empty())
          parts.push_back(part);
      if (parts.empty())
        fail(file, t.line, "malformed block header '[" + t.text + "]'");
      stack.push_back(parts);
      path.insert(path.end(), parts.begin(), parts.end());
      stub.block_lines.emplace(join(path), t.line);
      continue;
    }
    if (t.kind != Token::Word || k + 2 >= tokens.size() || tokens[k + 1].kind != Token::Equals ||
        (tokens[k + 2].kind != Token::Word && tokens[k + 2].kind != Token::Quoted))
      fail(file, t.line, "expected 'key = value', found '" + t.text + "'");
    auto & block = stub.blocks[join(path)];
    if (!block.emplace(t.text, Entry{tokens[k + 2].text, t.line}).second)
      fail(file, t.line, "'" + t.text + "' is set twice in [" + join(path) + "]");
    k += 2;
  }
  if (!stack.empty())
    fail(file,
         tokens.empty() ? 1 : tokens.back().line,
         "block [" + join(path) + "] is not closed with []");
  return stub;
}

std::string
trimmed(const std::string & s)
{
  const auto a = s.find_first_not_of(" \t\r\n");
  const auto b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}
} // namespace

std::filesystem::path
stub_artifact_path(const std::filesystem::path & stub, const std::string & name)
{
  return guard("load_model",
               [&]
               {
                 std::ifstream in(stub);
                 if (!in)
                   throw FatalError("load_model: cannot read the stub " + stub.string());
                 std::stringstream buffer;
                 buffer << in.rdbuf();
                 const auto parsed = parse(stub, buffer.str());
                 const auto key = "Models/" + name;
                 const auto line = parsed.block_lines.find(key);
                 if (line == parsed.block_lines.end())
                   throw FatalError(stub.string() + ": no block [Models]/[" + name + "]");
                 const auto found = parsed.blocks.find(key);
                 const std::map<std::string, Entry> none;
                 const auto & block = found == parsed.blocks.end() ? none : found->second;
                 const auto type = block.find("type");
                 if (type == block.end())
                   fail(stub, line->second, "[Models]/[" + name + "] has no 'type'");
                 if (trimmed(type->second.value) != "AOTIModel")
                   fail(stub,
                        type->second.line,
                        "[Models]/[" + name + "] has type '" + type->second.value +
                            "'; load_model needs type = AOTIModel (a neml2-compile stub)");
                 const auto path = block.find("artifact_path");
                 if (path == block.end())
                   fail(stub, line->second, "[Models]/[" + name + "] has no 'artifact_path'");
                 const auto value = trimmed(path->second.value);
                 if (value.empty())
                   fail(stub, path->second.line, "[Models]/[" + name + "]/artifact_path is empty");
                 std::filesystem::path root(value);
                 if (root.is_relative())
                   root = std::filesystem::absolute(stub).parent_path() / root;
                 return root.lexically_normal();
               });
}

DispatchedModel
load_model(const std::filesystem::path & stub,
           const std::string & name,
           std::shared_ptr<WorkScheduler> scheduler,
           c10::ScalarType dtype)
{
  if (dtype != c10::kDouble && dtype != c10::kFloat)
    throw FatalError("load_model: dtype must be float64 or float32, got " +
                     std::string(c10::toString(dtype)));
  auto root = stub_artifact_path(stub, name);
  if (!scheduler)
    scheduler = std::make_shared<SimpleScheduler>(c10::Device(c10::kCPU), default_chunk_size);
  return DispatchedModel(root, std::move(scheduler), dtype);
}
} // namespace neml2::aoti
