// Loading an artifact into ModelImpl: metadata.json validation, slots, parameters, graphs; and
// the signature each graph embeds. The contract is packages/neml2-aoti/ARTIFACT.md (format
// "neml2-aoti", schema_version 3). The validation (folder, header, leaf, content hashes) is also
// read_artifact_metadata (neml2/csrc/aoti/metadata.h), Python's neml2.aoti.compile.read_metadata.
//
// Both are JSON, parsed by nlohmann_json (`ordered_json`: the metadata lists variables in
// graph-call order). What this file adds on top is the error contract: a syntax error is
// "<file>:<line>:<column>: invalid JSON: <reason>", nesting deeper than kMaxDepth is an error and
// not a stack overflow, and a value of the wrong type or a missing key is
// "<file>: <JSON pointer>: <reason>" (JSON_DIAGNOSTICS records each value's place).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/headeronly/version.h>

// Errors of typed access then name the value's place as a JSON pointer ("/segments/0/kind").
#define JSON_DIAGNOSTICS 1
#include <nlohmann/json.hpp>

#include "graph.h"
#include "model_impl.h"
#include "neml2/csrc/aoti/Exception.h"
#include "neml2/csrc/aoti/metadata.h"

namespace neml2::aoti
{
namespace fs = std::filesystem;

namespace
{
using Json = nlohmann::ordered_json;

std::string
runtime_torch_version()
{
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

/// "2.13.0+cpu" -> "2.13.0"
std::string
release(const std::string & v)
{
  return v.substr(0, v.find_first_of("+-"));
}

/// Deepest nesting of arrays and objects a document may have.
constexpr int kMaxDepth = 512;

/// A type error that names the place of `j` (nlohmann's own exception, so messages are uniform).
[[noreturn]] void
type_error(const std::string & expected, const Json & j)
{
  throw Json::type_error::create(302, "type must be " + expected + ", but is " + j.type_name(), &j);
}

/// Member `key` of `j`; nullptr when absent or when `j` is not an object.
const Json *
member(const Json & j, const std::string & key)
{
  if (!j.is_object())
    return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

/// `j`, which must be an array (iterating a scalar would visit the scalar itself).
const Json &
array(const Json & j)
{
  if (!j.is_array())
    type_error("array", j);
  return j;
}

/// A number (get<double> would also take a boolean).
double
number(const Json & j)
{
  if (!j.is_number())
    type_error("number", j);
  return j.get<double>();
}

/// An integer, or a number with an integral value of magnitude at most 9e15 (get<int64_t> would
/// truncate 2.5 and take a boolean).
int64_t
integer(const Json & j)
{
  if (j.is_number_unsigned())
  {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<int64_t>::max()))
      throw Json::out_of_range::create(
          406, "integer " + std::to_string(u) + " is out of range", &j);
    return static_cast<int64_t>(u);
  }
  if (j.is_number_integer())
    return j.get<int64_t>();
  const double d = number(j);
  if (std::floor(d) != d || std::fabs(d) > 9.0e15)
    type_error("an integer", j);
  return static_cast<int64_t>(d);
}

std::vector<int64_t>
shape_of(const Json & j)
{
  std::vector<int64_t> s;
  for (const auto & x : array(j))
    s.push_back(integer(x));
  return s;
}

std::string
opt_string(const Json & j, const std::string & key, const std::string & fallback)
{
  const auto * x = member(j, key);
  return x && x->is_string() ? x->get<std::string>() : fallback;
}

/// nlohmann's message without its "[json.exception.<kind>.<id>] " prefix; a JSON pointer in the
/// leading "(...) " (JSON_DIAGNOSTICS) becomes "<pointer>: ".
std::string
reason(const std::string & message)
{
  auto text = message.substr(message.find(']') == std::string::npos ? 0 : message.find(']') + 2);
  if (!text.empty() && text.front() == '(')
    if (const auto close = text.find(") "); close != std::string::npos)
      return text.substr(1, close - 1) + ": " + text.substr(close + 2);
  return text;
}

/// The line and column ("<line>:<column>") of byte `pos` of `text`, both 1-based.
std::string
line_column(const std::string & text, std::size_t pos)
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
  return std::to_string(line) + ":" + std::to_string(col);
}

/// Thrown by the depth guard out of the parser.
struct TooDeep
{
};

/// Parse a complete JSON text; `source` (a file path) prefixes error messages.
Json
parse_json(const std::string & text, const std::string & source)
{
  const Json::parser_callback_t depth_guard = [](int depth, nlohmann::json::parse_event_t, Json &)
  {
    if (depth > kMaxDepth)
      throw TooDeep{};
    return true;
  };
  try
  {
    return Json::parse(text, depth_guard);
  }
  catch (const TooDeep &)
  {
    throw FatalError(source + ": invalid JSON: nested deeper than " + std::to_string(kMaxDepth) +
                     " arrays/objects");
  }
  catch (const Json::parse_error & e)
  {
    // e.byte: 1-based index of the last byte read (the offending one); the message's own
    // "parse error at line L, column C: " is replaced by the file:line:column form
    auto why = reason(e.what());
    auto colon = why.find(": syntax error");
    if (colon == std::string::npos)
      colon = why.find(": ");
    if (colon != std::string::npos)
      why = why.substr(colon + 2);
    throw FatalError(source + ":" + line_column(text, e.byte > 0 ? e.byte - 1 : 0) +
                     ": invalid JSON: " + why);
  }
  catch (const Json::exception & e)
  {
    // e.g. a number literal too large for a double
    throw FatalError(source + ": invalid JSON: " + reason(e.what()));
  }
}

/// A file's bytes; a missing or unreadable file is a FatalError naming it.
std::string
read_text(const std::string & path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw FatalError("cannot read '" + path + "' (missing file or no permission)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs `read` on a parsed document; a type error or a missing key inside (nlohmann's
/// exceptions) becomes a FatalError "<source>: <pointer>: <reason>".
template <typename Read>
auto
reading(const std::string & source, Read && read)
{
  try
  {
    return read();
  }
  catch (const Json::exception & e)
  {
    throw FatalError(source + ": " + reason(e.what()));
  }
}

/// The "flags" of this CPU as /proc/cpuinfo lists them; empty when it cannot be read.
const std::set<std::string> &
host_cpu_flags()
{
  static const std::set<std::string> flags = []
  {
    std::set<std::string> out;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("flags", 0) == 0 && line.find(':') != std::string::npos)
      {
        std::istringstream words(line.substr(line.find(':') + 1));
        for (std::string w; words >> w;)
          out.insert(w);
        break;
      }
    return out;
  }();
  return flags;
}

/// A leaf compiled with -march=native records its CPU's instruction-set extensions
/// (leaves[].cpu_features); this CPU must have every one, or the leaf's code would stop the
/// process with an illegal instruction. Not checked where /proc/cpuinfo cannot be read.
void
check_cpu_features(const Json & leaf, const std::string & rel, const std::string & src)
{
  const auto * recorded = member(leaf, "cpu_features");
  const auto & host = host_cpu_flags();
  if (!recorded || host.empty())
    return;
  std::string missing;
  for (const auto & f : array(*recorded))
    if (const auto & name = f.get<std::string>(); !host.count(name))
      missing += (missing.empty() ? "" : ", ") + name;
  if (!missing.empty())
    throw FatalError(src + ": leaf " + rel +
                     " was compiled for a CPU with instructions this CPU lacks (" + missing +
                     "); running it would stop the process with an illegal instruction. "
                     "Recompile with neml2-compile on this machine");
}

std::vector<TensorSpec>
tensor_specs(const Json & list)
{
  std::vector<TensorSpec> out;
  for (const auto & e : array(list))
    out.push_back({e.at("dtype").get<std::string>(),
                   e.at("device").get<std::string>(),
                   shape_of(e.at("shape"))});
  return out;
}

/// A graph's embedded signature ({inputs, outputs, batch_rows?}).
GraphSignature
read_signature(const Json & doc, const std::string & what)
{
  GraphSignature sig{tensor_specs(doc.at("inputs")), tensor_specs(doc.at("outputs"))};
  if (const auto * rows = member(doc, "batch_rows"))
  {
    sig.row_multiple = integer(rows->at("multiple"));
    sig.min_rows = integer(rows->at("min"));
    if (sig.row_multiple < 1 || sig.min_rows < 1)
      throw FatalError(what + ": batch_rows must be positive; re-run neml2-compile");
  }
  return sig;
}

std::vector<std::string>
available_leaves(const fs::path & root)
{
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto & d : fs::directory_iterator(root, ec))
    if (d.is_directory())
      for (const auto & t : fs::directory_iterator(d.path(), ec))
        if (t.is_directory())
          out.push_back(d.path().filename().string() + "/" + t.path().filename().string());
  return out;
}

/// The header checks of metadata.json `src` (ARTIFACT.md §5): format, schema version, torch
/// release and C++ ABI.
void
check_header(const Json & doc, const std::string & src)
{
  if (!doc.is_object())
    type_error("object", doc);
  const auto fmt = opt_string(doc, "format", "");
  if (fmt != kArtifactFormat)
    throw FatalError(src + ": not a neml2-aoti artifact (format '" + fmt + "', expected '" +
                     kArtifactFormat + "'); regenerate it with neml2-compile");
  const auto ver = integer(doc.at("schema_version"));
  if (ver < kOldestSchemaVersion || ver > kSchemaVersion)
    throw FatalError(src + " was written with schema version " + std::to_string(ver) +
                     ", this neml2 reads " + std::to_string(kOldestSchemaVersion) + " to " +
                     std::to_string(kSchemaVersion) + ": recompile with neml2-compile");
  const auto tv = doc.at("torch_version").get<std::string>();
  if (release(tv) != runtime_torch_version())
    throw FatalError(src + ": artifact built with torch " + tv + ", running torch " +
                     runtime_torch_version() +
                     ": recompile with neml2-compile under this torch (graphs are tied to one "
                     "torch version)");
  if (const auto * abi = member(doc, "cxx11_abi"); abi && abi->is_boolean())
    if (abi->get<bool>() != bool(_GLIBCXX_USE_CXX11_ABI))
      throw FatalError(src + ": artifact built with _GLIBCXX_USE_CXX11_ABI=" +
                       std::to_string(int(abi->get<bool>())) + ", this runtime uses " +
                       std::to_string(int(_GLIBCXX_USE_CXX11_ABI)) +
                       "; recompile with neml2-compile under this torch");
}

/// The <device>/<dtype> leaf of an artifact.
struct Leaf
{
  fs::path dir;
  /// "<device>/<dtype>" for messages.
  std::string name;
  /// The leaf's {graph file: sha1} map (leaves[].sha1), null when not recorded.
  const Json * digests = nullptr;
};

/// The leaf of artifact `root` (metadata `doc`, file `src`) for device type `dev` and `dtype`:
/// from "leaves" when recorded, else the <device>/<dtype> folder convention. FatalError when it is
/// not there (listing the leaves there are) or was compiled for instructions this CPU lacks.
Leaf
find_leaf(const Json & doc,
          const fs::path & root,
          const std::string & dev,
          c10::ScalarType dtype,
          const std::string & src)
{
  const auto dt = dtype_folder(dtype);
  Leaf leaf{fs::path(), dev + "/" + dt, nullptr};
  std::string rel = leaf.name;
  std::string avail;
  if (const auto * leaves = member(doc, "leaves"); leaves && leaves->is_array())
  {
    bool found = false;
    for (const auto & l : *leaves)
    {
      const auto d = l.at("device").get<std::string>();
      const auto t = l.at("dtype").get<std::string>();
      avail += (avail.empty() ? "" : ", ") + d + "/" + t;
      if (d == dev && t == dt)
      {
        found = true;
        if (const auto * path = member(l, "path"))
          rel = path->get<std::string>();
        if (const auto * sha1 = member(l, "sha1"); sha1 && sha1->is_object())
          leaf.digests = sha1;
        check_cpu_features(l, leaf.name, src);
      }
    }
    if (!found)
      rel.clear();
  }
  else
    for (const auto & l : available_leaves(root))
      avail += (avail.empty() ? "" : ", ") + l;
  leaf.dir = root / rel;
  if (rel.empty() || !fs::is_directory(leaf.dir))
    throw FatalError("artifact '" + root.string() + "' has no " + leaf.name +
                     " leaf (available: " + (avail.empty() ? std::string("none") : avail) +
                     "); recompile with neml2-compile ... --device " + dev + " --dtype " + dt);
  return leaf;
}

/// Every graph file of the leaf's sha1 map exists with that content hash (verify_graph_file); a
/// leaf without the map, or with an empty one, is refused.
void
check_leaf_digests(const Leaf & leaf, const std::string & src)
{
  if (!leaf.digests || leaf.digests->empty())
    throw FatalError(src + ": leaf " + leaf.name +
                     " records no sha1 for its graphs; recompile with neml2-compile");
  for (const auto & [file, sha1] : leaf.digests->items())
    verify_graph_file((leaf.dir / file).string(), sha1.get<std::string>());
}

/// The metadata file of artifact folder `root`; FatalError when the folder or the file is missing.
fs::path
metadata_path(const fs::path & root)
{
  const auto meta = root / "metadata.json";
  if (!fs::is_directory(root))
    throw FatalError("artifact folder '" + root.string() +
                     "' does not exist; run neml2-compile to produce it (or fix the path)");
  if (!fs::is_regular_file(meta))
    throw FatalError("'" + root.string() +
                     "' holds no metadata.json; it is not a neml2-compile artifact folder");
  return meta;
}
} // namespace

std::string
dtype_folder(c10::ScalarType t)
{
  if (t == c10::kDouble)
    return "float64";
  if (t == c10::kFloat)
    return "float32";
  throw FatalError(std::string("unsupported dtype ") + c10::toString(t) +
                   " (a neml2 artifact is float64 or float32)");
}

/// Reads metadata.json into a ModelImpl (a friend: it fills the private description).
struct MetadataReader
{
  ModelImpl & m;
  fs::path leaf;
  std::string src; // "<root>/metadata.json" for messages
  /// The leaf's {graph file: sha1} map (leaves[].sha1), null when not recorded.
  const Json * digests = nullptr;

  int slot(const std::string & name)
  {
    auto it = m.slot_of.find(name);
    if (it != m.slot_of.end())
      return it->second;
    VarInfo v;
    v.name = name;
    m.vars.push_back(v);
    const int id = int(m.vars.size()) - 1;
    m.slot_of.emplace(name, id);
    return id;
  }

  /// A variable entry {name, var_type?, base_shape, sub_batch_shape?}; registers / refines a slot.
  int var(const Json & e)
  {
    const auto name = e.at("name").get<std::string>();
    const int id = slot(name);
    auto & v = m.vars[id];
    if (const auto * t = member(e, "var_type"))
      v.type = t->get<std::string>();
    if (const auto * b = member(e, "base_shape"))
      v.base = shape_of(*b);
    if (const auto * sb = member(e, "sub_batch_shape"))
      v.sub = shape_of(*sb);
    v.size = prod(v.base) * prod(v.sub);
    return id;
  }

  int param_index(const std::string & name, const std::string & what)
  {
    for (std::size_t i = 0; i < m.params.size(); ++i)
      if (m.params[i].name == name)
        return int(i);
    throw FatalError(src + ": " + what + " names parameter '" + name +
                     "' that is not in 'parameters'");
  }

  std::unique_ptr<Graph> graph(const Json & seg, const std::string & key)
  {
    const auto * gs = member(seg, "graphs");
    const auto * f = gs ? member(*gs, key) : nullptr;
    if (!f || f->is_null())
      return nullptr;
    const auto file = f->get<std::string>();
    const auto * sha1 = digests ? member(*digests, file) : nullptr;
    if (!sha1)
      throw FatalError(src + ": leaf " + leaf.lexically_relative(m.root).string() +
                       " records no sha1 for graph '" + file + "'; recompile with neml2-compile");
    return std::make_unique<Graph>((leaf / file).string(), m.device, sha1->get<std::string>());
  }

  std::vector<int> names(const Json & seg, const std::string & key)
  {
    std::vector<int> ids;
    const auto * a = member(seg, key);
    if (!a || a->is_null())
      return ids;
    for (const auto & e : array(*a))
      ids.push_back(e.is_string() ? slot(e.get<std::string>()) : var(e));
    return ids;
  }

  std::vector<int> param_list(const Json & seg, const std::string & what)
  {
    std::vector<int> ids;
    if (const auto * a = member(seg, "param_inputs"))
      for (const auto & e : array(*a))
        ids.push_back(param_index(e.get<std::string>(), what + ".param_inputs"));
    return ids;
  }

  std::vector<PairInfo> pairs(const Json & seg, const std::string & key, bool param)
  {
    std::vector<PairInfo> out;
    if (const auto * a = member(seg, key))
      for (const auto & e : array(*a))
      {
        PairInfo p;
        p.out = slot(e.at("out").get<std::string>());
        p.in = param ? param_index(e.at("param").get<std::string>(), key)
                     : slot(e.at("in").get<std::string>());
        if (const auto * b = member(e, "batch_independent"))
          p.batch_independent = b->get<bool>();
        out.push_back(p);
      }
    return out;
  }

  /// Entries {name, offset, size, role?, pair?} (variables, or parameters when `param`).
  std::vector<PackedVar>
  packed(const Json & seg, const std::string & key, const std::string & what, bool param)
  {
    std::vector<PackedVar> out;
    const auto * a = member(seg, key);
    if (!a)
      return out;
    int64_t offset = 0;
    for (const auto & e : array(*a))
    {
      PackedVar p;
      if (param)
      {
        p.slot = param_index(e.at("name").get<std::string>(), what + "." + key);
        p.size = m.params[p.slot].size;
      }
      else
      {
        p.slot = member(e, "base_shape") ? var(e) : slot(e.at("name").get<std::string>());
        const auto & v = m.vars[p.slot];
        p.size = prod(v.base) * prod(v.sub);
      }
      if (const auto * sz = member(e, "size"))
        p.size = integer(*sz);
      const auto * at_offset = member(e, "offset");
      p.offset = at_offset ? integer(*at_offset) : offset;
      offset = p.offset + p.size;
      p.role = opt_string(e, "role", "");
      if (const auto * pr = member(e, "pair"); pr && pr->is_string())
        p.pair = slot(pr->get<std::string>());
      out.push_back(p);
    }
    return out;
  }

  /// jacobian_pairs[k].value (a constant block folded at compile time, row-major
  /// (*out_base, *in_base)) as a (1, *out_trailing, *in_trailing) tensor of the model's dtype.
  void fold_constants(const Json & e, ForwardSegment & f, const std::string & what)
  {
    const auto * a = member(e, "jacobian_pairs");
    if (!a)
      return;
    const auto & entries = array(*a);
    std::size_t folded = 0;
    for (std::size_t k = 0; k < entries.size(); ++k)
    {
      const auto * v = member(entries[k], "value");
      if (!v)
        continue;
      const auto key = what + ".jacobian_pairs[" + std::to_string(k) + "].value";
      const auto & out = m.vars[f.pairs[k].out];
      const auto & in = m.vars[f.pairs[k].in];
      const auto & xs = array(*v);
      if (static_cast<int64_t>(xs.size()) != out.size * in.size)
        throw FatalError(src + ": " + key + " has " + std::to_string(xs.size()) +
                         " numbers, expected " + std::to_string(out.size * in.size) + " for d(" +
                         out.name + ")/d(" + in.name + "); recompile the artifact");
      std::vector<double> data;
      data.reserve(xs.size());
      for (const auto & x : xs)
        data.push_back(number(x));
      std::vector<int64_t> shape{1};
      for (auto d : out.trailing())
        shape.push_back(d);
      for (auto d : in.trailing())
        shape.push_back(d);
      f.pairs[k].constant = at::tensor(data, at::kDouble)
                                .reshape(shape)
                                .to(at::TensorOptions().dtype(m.dtype).device(m.device));
      f.pairs[k].batch_independent = true;
      ++folded;
    }
    if (folded > 0 && folded != f.pairs.size())
      throw FatalError(src + ": " + what +
                       ".jacobian_pairs: either every pair or none carries a folded value");
    f.constant_jvp = folded > 0 && !f.jvp;
  }

  void forward_segment(const Json & e, Segment & seg, const std::string & what)
  {
    auto & f = seg.fwd;
    f.inputs = names(e, "inputs");
    f.outputs = names(e, "outputs");
    f.params = param_list(e, what);
    f.value = graph(e, "value");
    if (!f.value)
      throw FatalError(src + ": " + what + " has no graphs.value");
    f.jvp = graph(e, "jvp");
    f.pjac = graph(e, "pjac");
    f.pairs = pairs(e, "jacobian_pairs", false);
    f.param_pairs = pairs(e, "param_jacobian_pairs", true);
    fold_constants(e, f, what);
    if (!f.pairs.empty() && !f.has_jvp())
      throw FatalError(src + ": " + what +
                       " lists jacobian_pairs but has no graphs.jvp (nor a value for every pair)");
    if (!f.param_pairs.empty() && !f.pjac)
      throw FatalError(src + ": " + what + " lists param_jacobian_pairs but has no graphs.pjac");
  }

  void implicit_segment(const Json & e, Segment & seg, const std::string & what)
  {
    auto & s = seg.imp;
    seg.implicit = true;
    s.unknowns = packed(e, "unknowns", what, false);
    s.givens = packed(e, "givens", what, false);
    if (s.unknowns.empty())
      throw FatalError(src + ": " + what + " has no unknowns");
    for (const auto & u : s.unknowns)
      s.n_unknown = std::max(s.n_unknown, u.offset + u.size);
    if (const auto * n = member(e, "n_unknowns"))
      s.n_unknown = integer(*n);
    s.given_columns = packed(e, "given_columns", what, false);
    s.param_columns = packed(e, "param_columns", what, true);
    for (const auto & c : s.given_columns)
      s.n_given_columns = std::max(s.n_given_columns, c.offset + c.size);
    for (const auto & c : s.param_columns)
      s.n_param_columns = std::max(s.n_param_columns, c.offset + c.size);
    if (const auto * n = member(e, "n_given_columns"))
      s.n_given_columns = integer(*n);
    if (const auto * n = member(e, "n_param_columns"))
      s.n_param_columns = integer(*n);
    s.params = param_list(e, what);
    s.residual = graph(e, "residual");
    s.jacobian = graph(e, "jacobian");
    if (!s.jacobian)
      throw FatalError(src + ": " + what + " has no graphs.jacobian");
    s.jacobian_given = graph(e, "jacobian_given");
    s.dr_dparam = graph(e, "dr_dparam");
    s.predictor = graph(e, "predictor");
    if (const auto * gs = member(e, "guesses"); gs && gs->is_array())
      for (const auto & gv : *gs)
      {
        if (gv.is_string())
        {
          const int id = slot(gv.get<std::string>());
          s.guesses.emplace_back(id, id);
        }
        else
          s.guesses.emplace_back(slot(gv.at("input").get<std::string>()),
                                 slot(gv.at("unknown").get<std::string>()));
      }
    if (const auto * pr = member(e, "predictor"); pr && pr->is_object())
    {
      const auto * id = member(*pr, "identity");
      const bool identity = id && id->is_boolean() && id->get<bool>();
      s.predictor_inputs = names(*pr, "inputs");
      s.predictor_outputs = names(*pr, "outputs");
      if (identity)
      {
        s.predictor.reset();
        s.predictor_copy_from = names(*pr, "copy_from");
        if (s.predictor_copy_from.size() != s.predictor_outputs.size())
          throw FatalError(src + ": " + what +
                           ".predictor: copy_from and outputs differ in length");
      }
      else if (!s.predictor)
        throw FatalError(src + ": " + what + " has a predictor but no graphs.predictor");
      // optional runtime-looped predictor: {"input", "output", "iterations"}
      if (const auto * fb = member(*pr, "feedback"); fb && fb->is_object())
      {
        s.feedback_input = slot(fb->at("input").get<std::string>());
        s.feedback_output = slot(fb->at("output").get<std::string>());
        s.feedback_iterations = integer(fb->at("iterations"));
      }
    }
    if (const auto * l = member(e, "max_substepping_level"))
      s.max_substepping_level = integer(*l);
    if (const auto * r = member(e, "rows_independent"))
      s.rows_independent = r->get<bool>();
    if (const auto * r = member(e, "chunk_rows"))
    {
      s.chunk_rows = integer(*r);
      if (s.chunk_rows < 0)
        throw FatalError(src + ": " + what + ".chunk_rows must be >= 0, got " +
                         std::to_string(s.chunk_rows));
    }
  }

  void solver_config(const Json & c)
  {
    auto & k = m.config;
    auto num = [&](const char * key, double & out)
    {
      if (const auto * v = member(c, key))
        out = number(*v);
    };
    auto whole = [&](const char * key, int64_t & out)
    {
      if (const auto * v = member(c, key))
        out = integer(*v);
    };
    num("atol", k.atol);
    num("rtol", k.rtol);
    whole("miters", k.miters);
    num("substep_del_tol", k.substep_del_tol);
    k.ls_type = opt_string(c, "ls_type", k.ls_type);
    whole("ls_max_iters", k.ls_max_iters);
    num("ls_cutback", k.ls_cutback);
    num("ls_c", k.ls_c);
    if (const auto * ls = member(c, "linesearch"); ls && ls->is_boolean() && !ls->get<bool>())
      k.ls_max_iters = std::min<int64_t>(k.ls_max_iters, 1);
  }

  /// The whole document: header checks, the leaf for `dev` and the model's dtype, then read().
  void load(const Json & doc, const std::string & dev);

  void read(const Json & doc)
  {
    for (const auto & e : array(doc.at("inputs")))
      m.input_slots.push_back(var(e));
    for (const auto & e : array(doc.at("outputs")))
      m.output_slots.push_back(var(e));
    for (int id : m.input_slots)
    {
      m.input_names.push_back(m.vars[id].name);
      m.input_types.push_back(m.vars[id].type);
      m.input_base.push_back(m.vars[id].base);
      m.input_sub.push_back(m.vars[id].sub);
    }
    for (int id : m.output_slots)
    {
      m.output_names.push_back(m.vars[id].name);
      m.output_types.push_back(m.vars[id].type);
      m.output_base.push_back(m.vars[id].base);
      m.output_sub.push_back(m.vars[id].sub);
    }
    const auto opts = at::TensorOptions().dtype(m.dtype).device(m.device);
    if (const auto * ps = member(doc, "parameters"))
      for (const auto & e : array(*ps))
      {
        ParamInfo p;
        p.name = e.at("name").get<std::string>();
        const auto shape = shape_of(e.at("shape"));
        p.base = shape; // graphs take (B, *shape)
        p.size = prod(p.base);
        std::vector<double> values;
        for (const auto & x : array(e.at("values")))
          values.push_back(number(x));
        if (int64_t(values.size()) != prod(shape))
          throw FatalError(src + ": parameter '" + p.name + "' has " +
                           std::to_string(values.size()) + " values for shape of " +
                           std::to_string(prod(shape)) + " elements");
        auto t = at::tensor(values, at::TensorOptions().dtype(at::kDouble)).reshape(shape).to(opts);
        m.named_parameters[p.name] = t;
        m.params.push_back(std::move(p));
      }
    auto pair_list = [&](const char * key, auto & out)
    {
      if (const auto * d = member(doc, key))
        for (const auto & e : array(*d))
        {
          if (array(e).size() != 2)
            throw FatalError(src + ": " + key + " entries must be [out, in] pairs");
          out.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
        }
    };
    if (const auto * dyn = member(doc, "dynamic_batch");
        dyn && dyn->is_boolean() && !dyn->get<bool>())
      m.fixed_batch = integer(doc.at("example_batch"));
    if (const auto * mb = member(doc, "min_batch"))
      m.min_batch = std::max<int64_t>(1, integer(*mb));
    pair_list("derivatives", m.derivatives);
    pair_list("parameter_derivatives", m.parameter_derivatives);
    std::vector<std::pair<std::string, std::string>> diagonal;
    pair_list("site_diagonal_derivatives", diagonal);
    m.site_diagonal.insert(diagonal.begin(), diagonal.end());
    if (const auto * c = member(doc, "solver_config"); c && c->is_object())
      solver_config(*c);
    const auto & segs = array(doc.at("segments"));
    for (std::size_t k = 0; k < segs.size(); ++k)
    {
      const std::string what = "segments[" + std::to_string(k) + "]";
      const auto kind = segs[k].at("kind").get<std::string>();
      Segment seg;
      if (kind == "forward")
        forward_segment(segs[k], seg, what);
      else if (kind == "implicit")
        implicit_segment(segs[k], seg, what);
      else
        throw FatalError(src + ": " + what + ".kind '" + kind +
                         "' (expected 'forward' or 'implicit')");
      m.segments.push_back(std::move(seg));
    }
    for (const auto & [o, i] : m.derivatives)
      if (!m.slot_of.count(o) || !m.slot_of.count(i))
        throw FatalError(src + ": derivative pair [" + o + ", " + i +
                         "] names an unknown variable");
    for (const auto & pr : m.site_diagonal)
    {
      const auto where =
          src + ": site_diagonal_derivatives pair [" + pr.first + ", " + pr.second + "]";
      if (std::find(m.derivatives.begin(), m.derivatives.end(), pr) == m.derivatives.end())
        throw FatalError(where + " is not a compiled derivative pair");
      const auto & so = m.vars[m.slot_of.at(pr.first)].sub;
      if (so.empty() || so != m.vars[m.slot_of.at(pr.second)].sub)
        throw FatalError(where + ": both variables must have the same non-empty sub-batch shape");
    }
  }
};

namespace
{
/// Whether `name` names an artifact's metadata file: metadata.json, or NEML2 v3's documented
/// <model>_meta.json.
bool
metadata_file_name(const std::string & name)
{
  const std::string suffix = "_meta.json";
  return name == "metadata.json" ||
         (name.size() > suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0);
}
} // namespace

fs::path
artifact_folder(const fs::path & path)
{
  if (fs::is_directory(path))
    return path;
  const auto name = path.filename().string();
  if (metadata_file_name(name))
    return path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (fs::exists(path))
    throw FatalError("'" + path.string() +
                     "' is neither an artifact folder nor its metadata file (metadata.json or "
                     "<model>_meta.json); pass the folder neml2-compile wrote");
  return path;
}

ModelImpl::ModelImpl(const fs::path & root_in, c10::Device device_in, c10::ScalarType dtype_in)
  : root(artifact_folder(root_in)),
    device(device_in),
    dtype(dtype_in)
{
  const auto meta = metadata_path(root);
  const auto dev = std::string(c10::DeviceTypeName(device.type(), /*lower_case=*/true));
  const auto doc = parse_json(read_text(meta.string()), meta.string());
  MetadataReader reader{*this, fs::path(), meta.string()};
  reading(meta.string(), [&] { reader.load(doc, dev); });
  check_graph_signatures(*this, meta.string());
}

void
MetadataReader::load(const Json & doc, const std::string & dev)
{
  check_header(doc, src);
  if (const auto * n = member(doc, "name"); n && n->is_string())
    m.model_name = n->get<std::string>();
  const auto found = find_leaf(doc, m.root, dev, m.dtype, src);
  leaf = found.dir;
  digests = found.digests;
  read(doc);
}

std::string
read_artifact_metadata(const fs::path & path,
                       const std::optional<c10::Device> & device,
                       std::optional<c10::ScalarType> dtype)
{
  const auto root = artifact_folder(path);
  const auto meta = metadata_path(root).string();
  auto text = read_text(meta);
  const auto doc = parse_json(text, meta);
  reading(meta,
          [&]
          {
            check_header(doc, meta);
            if (!device && !dtype)
              return;
            const auto type = device ? device->type() : c10::DeviceType::CPU;
            const auto dev = std::string(c10::DeviceTypeName(type, /*lower_case=*/true));
            check_leaf_digests(find_leaf(doc, root, dev, dtype.value_or(c10::kDouble), meta), meta);
          });
  return text;
}

GraphSignature
parse_graph_signature(const std::string & text, const std::string & what)
{
  const auto doc = parse_json(text, what);
  return reading(what, [&] { return read_signature(doc, what); });
}
} // namespace neml2::aoti
