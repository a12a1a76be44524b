// Loading an artifact into ModelImpl: metadata.json validation, slots, parameters, graphs.
// The contract is packages/neml2-aoti/ARTIFACT.md (format "neml2-aoti", schema_version 3).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <ATen/ATen.h>
#include <torch/headeronly/version.h>

#include "json.h"
#include "model_impl.h"
#include "neml2/csrc/aoti/Exception.h"

namespace neml2::aoti
{
namespace fs = std::filesystem;

namespace
{
/// Written by this neml2's neml2-compile; kOldestSchemaVersion ... kSchemaVersion are read
/// (version 3 added "batch_rows" to graph signatures, which version 2 graphs lack).
constexpr int64_t kSchemaVersion = 3, kOldestSchemaVersion = 2;
constexpr const char * kFormat = "neml2-aoti";

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


std::vector<int64_t>
shape_of(const json::Value & v, const std::string & what)
{
  std::vector<int64_t> s;
  for (const auto & x : v.as_array(what))
    s.push_back(x.as_int(what));
  return s;
}

std::string
opt_string(const json::Value & v, const std::string & key, const std::string & fallback)
{
  const auto x = v.find(key);
  return x && x->is_string() ? x->as_string(key) : fallback;
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
check_cpu_features(const json::Value & leaf, const std::string & rel, const std::string & src)
{
  const auto recorded = leaf.find("cpu_features");
  const auto & host = host_cpu_flags();
  if (!recorded || host.empty())
    return;
  std::string missing;
  for (const auto & f : recorded->as_array("leaves.cpu_features"))
    if (const auto & name = f.as_string("leaves.cpu_features"); !host.count(name))
      missing += (missing.empty() ? "" : ", ") + name;
  if (!missing.empty())
    throw FatalError(src + ": leaf " + rel +
                     " was compiled for a CPU with instructions this CPU lacks (" + missing +
                     "); running it would stop the process with an illegal instruction. "
                     "Recompile with neml2-compile on this machine");
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
  std::optional<json::Value> digests;

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
  int var(const json::Value & e, const std::string & what)
  {
    const auto & name = e.at("name", what).as_string(what + ".name");
    const int id = slot(name);
    auto & v = m.vars[id];
    if (const auto t = e.find("var_type"))
      v.type = t->as_string(what + ".var_type");
    if (const auto b = e.find("base_shape"))
      v.base = shape_of(*b, what + "." + name + ".base_shape");
    if (const auto sb = e.find("sub_batch_shape"))
      v.sub = shape_of(*sb, what + "." + name + ".sub_batch_shape");
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

  std::unique_ptr<Graph> graph(const json::Value & seg, const std::string & key)
  {
    const auto gs = seg.find("graphs");
    const auto f = gs ? gs->find(key) : std::nullopt;
    if (!f || f->is_null())
      return nullptr;
    const auto & file = f->as_string("graphs." + key);
    const auto sha1 = digests ? digests->find(file) : std::nullopt;
    if (!sha1)
      throw FatalError(src + ": leaf " + leaf.lexically_relative(m.root).string() +
                       " records no sha1 for graph '" + file + "'; recompile with neml2-compile");
    return std::make_unique<Graph>(
        (leaf / file).string(), m.device, sha1->as_string("sha1." + file));
  }

  std::vector<int> names(const json::Value & seg, const std::string & key, const std::string & what)
  {
    std::vector<int> ids;
    const auto a = seg.find(key);
    if (!a || a->is_null())
      return ids;
    for (const auto & e : a->as_array(what + "." + key))
      ids.push_back(e.is_string() ? slot(e.as_string(key)) : var(e, what + "." + key));
    return ids;
  }

  std::vector<int> param_list(const json::Value & seg, const std::string & what)
  {
    std::vector<int> ids;
    if (const auto a = seg.find("param_inputs"))
      for (const auto & e : a->as_array(what + ".param_inputs"))
        ids.push_back(param_index(e.as_string(what + ".param_inputs"), what + ".param_inputs"));
    return ids;
  }

  std::vector<PairInfo> pairs(const json::Value & seg, const std::string & key, bool param)
  {
    std::vector<PairInfo> out;
    if (const auto a = seg.find(key))
      for (const auto & e : a->as_array(key))
      {
        PairInfo p;
        p.out = slot(e.at("out", key).as_string(key + ".out"));
        p.in = param ? param_index(e.at("param", key).as_string(key + ".param"), key)
                     : slot(e.at("in", key).as_string(key + ".in"));
        if (const auto b = e.find("batch_independent"))
          p.batch_independent = b->as_bool(key + ".batch_independent");
        out.push_back(p);
      }
    return out;
  }

  /// Entries {name, offset, size, role?, pair?} (variables, or parameters when `param`).
  std::vector<PackedVar>
  packed(const json::Value & seg, const std::string & key, const std::string & what, bool param)
  {
    std::vector<PackedVar> out;
    const auto a = seg.find(key);
    if (!a)
      return out;
    int64_t offset = 0;
    for (const auto & e : a->as_array(what + "." + key))
    {
      PackedVar p;
      const auto w = what + "." + key;
      if (param)
      {
        p.slot = param_index(e.at("name", w).as_string(w + ".name"), w);
        p.size = m.params[p.slot].size;
      }
      else
      {
        p.slot = e.find("base_shape") ? var(e, w) : slot(e.at("name", w).as_string(w + ".name"));
        const auto & v = m.vars[p.slot];
        p.size = prod(v.base) * prod(v.sub);
      }
      if (const auto sz = e.find("size"))
        p.size = sz->as_int(w + ".size");
      p.offset = e.find("offset") ? e.at("offset", w).as_int(w + ".offset") : offset;
      offset = p.offset + p.size;
      p.role = opt_string(e, "role", "");
      if (const auto pr = e.find("pair"); pr && pr->is_string())
        p.pair = slot(pr->as_string(w + ".pair"));
      out.push_back(p);
    }
    return out;
  }

  /// jacobian_pairs[k].value (a constant block folded at compile time, row-major
  /// (*out_base, *in_base)) as a (1, *out_trailing, *in_trailing) tensor of the model's dtype.
  void fold_constants(const json::Value & e, ForwardSegment & f, const std::string & what)
  {
    const auto a = e.find("jacobian_pairs");
    if (!a)
      return;
    const auto & entries = a->as_array(what + ".jacobian_pairs");
    std::size_t folded = 0;
    for (std::size_t k = 0; k < entries.size(); ++k)
    {
      const auto v = entries[k].find("value");
      if (!v)
        continue;
      const auto key = what + ".jacobian_pairs[" + std::to_string(k) + "].value";
      const auto & out = m.vars[f.pairs[k].out];
      const auto & in = m.vars[f.pairs[k].in];
      const auto & xs = v->as_array(key);
      if (static_cast<int64_t>(xs.size()) != out.size * in.size)
        throw FatalError(src + ": " + key + " has " + std::to_string(xs.size()) +
                         " numbers, expected " + std::to_string(out.size * in.size) + " for d(" +
                         out.name + ")/d(" + in.name + "); recompile the artifact");
      std::vector<double> data;
      data.reserve(xs.size());
      for (const auto & x : xs)
        data.push_back(x.as_double(key));
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

  void forward_segment(const json::Value & e, Segment & seg, const std::string & what)
  {
    auto & f = seg.fwd;
    f.inputs = names(e, "inputs", what);
    f.outputs = names(e, "outputs", what);
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

  void implicit_segment(const json::Value & e, Segment & seg, const std::string & what)
  {
    auto & s = seg.imp;
    seg.implicit = true;
    s.unknowns = packed(e, "unknowns", what, false);
    s.givens = packed(e, "givens", what, false);
    if (s.unknowns.empty())
      throw FatalError(src + ": " + what + " has no unknowns");
    for (const auto & u : s.unknowns)
      s.n_unknown = std::max(s.n_unknown, u.offset + u.size);
    if (const auto n = e.find("n_unknowns"))
      s.n_unknown = n->as_int(what + ".n_unknowns");
    s.given_columns = packed(e, "given_columns", what, false);
    s.param_columns = packed(e, "param_columns", what, true);
    for (const auto & c : s.given_columns)
      s.n_given_columns = std::max(s.n_given_columns, c.offset + c.size);
    for (const auto & c : s.param_columns)
      s.n_param_columns = std::max(s.n_param_columns, c.offset + c.size);
    if (const auto n = e.find("n_given_columns"))
      s.n_given_columns = n->as_int(what + ".n_given_columns");
    if (const auto n = e.find("n_param_columns"))
      s.n_param_columns = n->as_int(what + ".n_param_columns");
    s.params = param_list(e, what);
    s.residual = graph(e, "residual");
    s.jacobian = graph(e, "jacobian");
    if (!s.jacobian)
      throw FatalError(src + ": " + what + " has no graphs.jacobian");
    s.jacobian_given = graph(e, "jacobian_given");
    s.dr_dparam = graph(e, "dr_dparam");
    s.predictor = graph(e, "predictor");
    if (const auto gs = e.find("guesses"); gs && gs->is_array())
      for (const auto & gv : gs->as_array(what + ".guesses"))
      {
        if (gv.is_string())
        {
          const int id = slot(gv.as_string(what + ".guesses"));
          s.guesses.emplace_back(id, id);
        }
        else
          s.guesses.emplace_back(slot(gv.at("input", what + ".guesses").as_string("guesses.input")),
                                 slot(gv.at("unknown", what + ".guesses").as_string("guesses.unknown")));
      }
    if (const auto pr = e.find("predictor"); pr && pr->is_object())
    {
      const auto id = pr->find("identity");
      const bool identity = id && id->is_bool() && id->as_bool("predictor.identity");
      s.predictor_inputs = names(*pr, "inputs", what + ".predictor");
      s.predictor_outputs = names(*pr, "outputs", what + ".predictor");
      if (identity)
      {
        s.predictor.reset();
        s.predictor_copy_from = names(*pr, "copy_from", what + ".predictor");
        if (s.predictor_copy_from.size() != s.predictor_outputs.size())
          throw FatalError(src + ": " + what + ".predictor: copy_from and outputs differ in length");
      }
      else if (!s.predictor)
        throw FatalError(src + ": " + what + " has a predictor but no graphs.predictor");
      // optional runtime-looped predictor: {"input", "output", "iterations"}
      if (const auto fb = pr->find("feedback"); fb && fb->is_object())
      {
        s.feedback_input = slot(fb->at("input", what).as_string("predictor.feedback.input"));
        s.feedback_output = slot(fb->at("output", what).as_string("predictor.feedback.output"));
        s.feedback_iterations = fb->at("iterations", what).as_int("predictor.feedback.iterations");
      }
    }
    if (const auto l = e.find("max_substepping_level"))
      s.max_substepping_level = l->as_int(what + ".max_substepping_level");
    if (const auto r = e.find("rows_independent"))
      s.rows_independent = r->as_bool(what + ".rows_independent");
    if (const auto r = e.find("chunk_rows"))
    {
      s.chunk_rows = r->as_int(what + ".chunk_rows");
      if (s.chunk_rows < 0)
        throw FatalError(what + ".chunk_rows must be >= 0, got " + std::to_string(s.chunk_rows));
    }
  }

  void solver_config(const json::Value & c)
  {
    auto & k = m.config;
    auto num = [&](const char * key, double & out)
    {
      if (const auto v = c.find(key))
        out = v->as_double(std::string("solver_config.") + key);
    };
    auto integer = [&](const char * key, int64_t & out)
    {
      if (const auto v = c.find(key))
        out = v->as_int(std::string("solver_config.") + key);
    };
    num("atol", k.atol);
    num("rtol", k.rtol);
    integer("miters", k.miters);
    num("substep_del_tol", k.substep_del_tol);
    k.ls_type = opt_string(c, "ls_type", k.ls_type);
    integer("ls_max_iters", k.ls_max_iters);
    num("ls_cutback", k.ls_cutback);
    num("ls_c", k.ls_c);
    if (const auto ls = c.find("linesearch"); ls && ls->is_bool() && !ls->as_bool("linesearch"))
      k.ls_max_iters = std::min<int64_t>(k.ls_max_iters, 1);
  }

  void check_header(const json::Value & doc)
  {
    doc.as_object(src);
    const auto fmt = opt_string(doc, "format", "");
    if (fmt != kFormat)
      throw FatalError(src + ": not a neml2-aoti artifact (format '" + fmt + "', expected '" +
                       kFormat + "'); regenerate it with neml2-compile");
    const auto ver = doc.at("schema_version", src).as_int(src + ": schema_version");
    if (ver < kOldestSchemaVersion || ver > kSchemaVersion)
      throw FatalError(src + " was written with schema version " + std::to_string(ver) +
                       ", this neml2 reads " + std::to_string(kOldestSchemaVersion) + " to " +
                       std::to_string(kSchemaVersion) + ": recompile with neml2-compile");
    const auto tv = doc.at("torch_version", src).as_string(src + ": torch_version");
    if (release(tv) != runtime_torch_version())
      throw FatalError(src + ": artifact built with torch " + tv + ", running torch " +
                       runtime_torch_version() +
                       ": recompile with neml2-compile under this torch (graphs are tied to one "
                       "torch version)");
    if (const auto abi = doc.find("cxx11_abi"); abi && abi->is_bool())
      if (abi->as_bool("cxx11_abi") != bool(_GLIBCXX_USE_CXX11_ABI))
        throw FatalError(src + ": artifact built with _GLIBCXX_USE_CXX11_ABI=" +
                         std::to_string(int(abi->as_bool("cxx11_abi"))) +
                         ", this runtime uses " + std::to_string(int(_GLIBCXX_USE_CXX11_ABI)) +
                         "; recompile with neml2-compile under this torch");
  }

  void read(const json::Value & doc)
  {
    for (const auto & e : doc.at("inputs", src).as_array("inputs"))
    {
      const int id = var(e, "inputs");
      m.input_slots.push_back(id);
    }
    for (const auto & e : doc.at("outputs", src).as_array("outputs"))
      m.output_slots.push_back(var(e, "outputs"));
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
    if (const auto ps = doc.find("parameters"))
      for (const auto & e : ps->as_array("parameters"))
      {
        ParamInfo p;
        p.name = e.at("name", "parameters").as_string("parameters.name");
        const auto shape = shape_of(e.at("shape", "parameters." + p.name),
                                    "parameters." + p.name + ".shape");
        p.base = shape; // graphs take (B, *shape)
        p.size = prod(p.base);
        std::vector<double> values;
        for (const auto & x : e.at("values", "parameters." + p.name).as_array(p.name + ".values"))
          values.push_back(x.as_double("parameters." + p.name + ".values"));
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
      if (const auto d = doc.find(key))
        for (const auto & e : d->as_array(key))
        {
          const auto & a = e.as_array(key);
          if (a.size() != 2)
            throw FatalError(src + ": " + key + " entries must be [out, in] pairs");
          out.emplace_back(a[0].as_string(key), a[1].as_string(key));
        }
    };
    if (const auto dyn = doc.find("dynamic_batch"); dyn && dyn->is_bool() && !dyn->as_bool("dynamic_batch"))
      m.fixed_batch = doc.at("example_batch", src).as_int("example_batch");
    if (const auto mb = doc.find("min_batch"))
      m.min_batch = std::max<int64_t>(1, mb->as_int("min_batch"));
    pair_list("derivatives", m.derivatives);
    pair_list("parameter_derivatives", m.parameter_derivatives);
    std::vector<std::pair<std::string, std::string>> diagonal;
    pair_list("site_diagonal_derivatives", diagonal);
    m.site_diagonal.insert(diagonal.begin(), diagonal.end());
    if (const auto c = doc.find("solver_config"); c && c->is_object())
      solver_config(*c);
    const auto & segs = doc.at("segments", src).as_array("segments");
    for (std::size_t k = 0; k < segs.size(); ++k)
    {
      const std::string what = "segments[" + std::to_string(k) + "]";
      const auto kind = segs[k].at("kind", what).as_string(what + ".kind");
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
        throw FatalError(src + ": derivative pair [" + o + ", " + i + "] names an unknown variable");
    for (const auto & pr : m.site_diagonal)
    {
      const auto where = src + ": site_diagonal_derivatives pair [" + pr.first + ", " +
                         pr.second + "]";
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
  const auto meta = root / "metadata.json";
  if (!fs::is_directory(root))
    throw FatalError("artifact folder '" + root.string() +
                     "' does not exist; run neml2-compile to produce it (or fix the path)");
  if (!fs::is_regular_file(meta))
    throw FatalError("'" + root.string() +
                     "' holds no metadata.json; it is not a neml2-compile artifact folder");
  const auto dev = std::string(c10::DeviceTypeName(device.type(), /*lower_case=*/true));
  const auto doc = json::parse_file(meta.string());
  MetadataReader reader{*this, fs::path(), meta.string()};
  reader.check_header(doc);
  if (const auto n = doc.find("name"); n && n->is_string())
    model_name = n->as_string("name");
  // the leaf: from "leaves" when recorded, else the <device>/<dtype> folder convention
  std::string rel = dev + "/" + dtype_folder(dtype);
  std::string avail;
  if (const auto leaves = doc.find("leaves"); leaves && leaves->is_array())
  {
    bool found = false;
    for (const auto & l : leaves->as_array("leaves"))
    {
      const auto d = l.at("device", "leaves").as_string("leaves.device");
      const auto t = l.at("dtype", "leaves").as_string("leaves.dtype");
      avail += (avail.empty() ? "" : ", ") + d + "/" + t;
      if (d == dev && t == dtype_folder(dtype))
      {
        found = true;
        if (const auto path = l.find("path"))
          rel = path->as_string("leaves.path");
        if (const auto sha1 = l.find("sha1"); sha1 && sha1->is_object())
          reader.digests = sha1;
        check_cpu_features(l, d + "/" + t, meta.string());
      }
    }
    if (!found)
      rel.clear();
  }
  else
    for (const auto & l : available_leaves(root))
      avail += (avail.empty() ? "" : ", ") + l;
  reader.leaf = root / rel;
  if (rel.empty() || !fs::is_directory(reader.leaf))
    throw FatalError("artifact '" + root.string() + "' has no " + dev + "/" + dtype_folder(dtype) +
                     " leaf (available: " + (avail.empty() ? std::string("none") : avail) +
                     "); recompile with neml2-compile ... --device " + dev + " --dtype " +
                     dtype_folder(dtype));
  reader.read(doc);
  check_graph_signatures(*this, meta.string());
}
} // namespace neml2::aoti
