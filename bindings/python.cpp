// xrng._C: the Python face of the LibTorch API (bindings/xrng_torch.h). Thin:
// it converts arguments and exceptions, and holds no arithmetic; the
// Python-side signatures (torch-like sizes, dtypes, defaults) live in
// python/xrng/__init__.py.
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>
#include <ATen/PythonTorchFunctionTLS.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <torch/csrc/Device.h>
#include <torch/csrc/Dtype.h>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "detail/paths.h"
#include "mode.h"
#include "ops.h"
#include "xrng_torch.h"

namespace py = pybind11;
using namespace xrng::torch_api;

namespace {

Path parse_path(const std::string& s) {
  if (s == "auto") return Path::automatic;
  if (s == "host_transfer") return Path::host_transfer;
  throw xrng::Error("unknown path '" + s + "' (auto, host_transfer)");
}
RunOptions run_options(const std::string& path, int threads) {
  xrng::check_threads(threads, "threads");
  RunOptions r;
  r.path = parse_path(path);
  r.threads = threads;
  return r;
}

// Python arguments that must be integers in [0, 2^64): a one-line TypeError or
// ValueError naming the argument, as python/xrng/__init__.py's _u64 gives
// (instead of pybind11's "incompatible function arguments" overload list).
uint64_t to_u64(const py::handle& h, const char* what) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o) || !PyIndex_Check(o))
    throw py::type_error(std::string(what) + " must be an int, got " + Py_TYPE(o)->tp_name);
  const py::object v = py::reinterpret_steal<py::object>(PyNumber_Index(o));
  if (!v) throw py::error_already_set();
  const unsigned long long x = PyLong_AsUnsignedLongLong(v.ptr());
  if (x == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error(std::string(what) + " must be in [0, 2**64), got " + std::string(py::str(v)));
  }
  return x;
}

// Python arguments that must be integers in [-2^63, 2^63): a one-line
// TypeError or ValueError naming the argument (not pybind11's cast error).
int64_t to_i64(const py::handle& h, const char* what) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o) || !PyIndex_Check(o))
    throw py::type_error(std::string(what) + " must be an int, got " + Py_TYPE(o)->tp_name);
  const py::object v = py::reinterpret_steal<py::object>(PyNumber_Index(o));
  if (!v) throw py::error_already_set();
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow != 0)
    throw py::value_error(std::string(what) + " must be in [-2**63, 2**63), got " + std::string(py::str(v)));
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  return x;
}

// A Generator's fields, read in one step (a copy under its lock).
py::tuple fields(const Generator& g) {
  const Generator c(g);
  const xrng::Key k = c.key();
  return py::make_tuple(k.seed, k.subseq, c.offset(), c.stream());
}

// A stream version argument (SPEC.md section 7): an int, 1 or 2; else a
// one-line TypeError / ValueError, the messages of python/xrng/__init__.py's
// _check_stream.
int to_stream(const py::handle& h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o) || !PyIndex_Check(o))
    throw py::type_error(std::string("stream must be an int (a stream version: 1 or 2), got ") + Py_TYPE(o)->tp_name);
  const py::object v = py::reinterpret_steal<py::object>(PyNumber_Index(o));
  if (!v) throw py::error_already_set();
  int overflow = 0;
  const long x = PyLong_AsLongAndOverflow(v.ptr(), &overflow);
  if (overflow != 0 || x < xrng::kOldestStreamVersion || x > xrng::kStreamVersion)
    throw py::value_error("stream must be one of the stream versions (1, 2), got " + std::string(py::str(v)));
  return static_cast<int>(x);
}

// A Generator's state tensor, else a one-line TypeError.
at::Tensor state_tensor(const py::handle& h) {
  if (!THPVariable_Check(h.ptr()))
    throw py::type_error(std::string("Generator.set_state: expected the torch.uint8 tensor of get_state(), got ") +
                         Py_TYPE(h.ptr())->tp_name + " (state_bytes() / set_state_bytes() take bytes)");
  return THPVariable_Unpack(h.ptr());
}

// {name: value} -> DrawParams, by the registry's parameter names and kinds
// (XRNG_PARAMS). A name the distribution does not read is an error, so a
// misspelt parameter cannot silently take its default.
xrng::DrawParams draw_params(xrng::Dist d, const py::dict& params) {
  xrng::DrawParams q;
  for (const auto& item : params) {
    const std::string name = py::str(item.first);
    const xrng::ParamInfo* info = nullptr;
    for (const xrng::ParamInfo& pi : xrng::kParams)
      if (name == pi.name) info = &pi;
    if (info == nullptr || !xrng::dist_has_param(d, info->id)) {
      std::string known;
      for (const xrng::ParamInfo& pi : xrng::kParams)
        if (xrng::dist_has_param(d, pi.id)) known += (known.empty() ? "" : ", ") + std::string(pi.name);
      throw xrng::Error(std::string(xrng::dist_name(d)) + ": unknown parameter '" + name + "' (" +
                        (known.empty() ? "none" : known) + ")");
    }
    switch (info->kind) {
      case xrng::ParamKind::real: q.set_real(info->id, item.second.cast<double>()); break;
      case xrng::ParamKind::integer: q.set_integer(info->id, to_i64(item.second, info->name)); break;
      case xrng::ParamKind::count: q.set_count(info->id, to_u64(item.second, info->name)); break;
    }
  }
  return q;
}

// Where a draw starts, from Python: an xrng.Generator, which the draw
// advances, or a stream position (seed, subseq, offset) for the stateless
// calls (seed=...), which advance nothing and so may end exactly at word 2^64.
using Position = std::tuple<uint64_t, uint64_t, uint64_t>;
// A third source: the state tensor of a Python xrng.Generator (4 int64
// elements [seed, subseq, offset, stream], ops.h), advanced by xrng::take_.
using Source = std::variant<Generator*, at::Tensor, Position>;
// A source from Python: a native Generator, an xrng.Generator (its `_state`
// tensor), a state tensor, or a (seed, subseq, offset) tuple.
Source to_source(const py::handle& h) {
  if (THPVariable_Check(h.ptr())) return THPVariable_Unpack(h.ptr());
  if (PyTuple_Check(h.ptr())) return h.cast<Position>();
  if (py::isinstance<Generator>(h)) return h.cast<Generator*>();
  if (py::hasattr(h, "_state")) {
    const py::object st = h.attr("_state");
    if (THPVariable_Check(st.ptr())) return THPVariable_Unpack(st.ptr());
  }
  if (h.is_none()) return static_cast<Generator*>(nullptr);
  return h.cast<Position>();
}
// pybind11 loads None as a null Generator*.
Generator& checked(Generator* g) {
  if (g == nullptr) throw xrng::Error("source must be an xrng.Generator or a (seed, subseq, offset) tuple, not None");
  return *g;
}

const char* kind_name(xrng::Kind k) {
  switch (k) {
    case xrng::Kind::element: return "element";
    case xrng::Kind::permutation: return "permutation";
    case xrng::Kind::transform: return "transform";
  }
  return "?";
}
const char* param_kind_name(xrng::ParamKind k) {
  switch (k) {
    case xrng::ParamKind::real: return "real";
    case xrng::ParamKind::integer: return "integer";
    case xrng::ParamKind::count: return "count";
  }
  return "?";
}

// The registry (rng/registry.h) as Python values, for code and tests that
// iterate it instead of restating it.
py::dict registry() {
  py::dict dtypes, params, dists;
  for (xrng::DType t : xrng::kAllDTypes) dtypes[xrng::dtype_name(t)] = scalar_type_of(t);
  for (const xrng::ParamInfo& p : xrng::kParams)
    params[p.name] = py::dict(py::arg("kind") = param_kind_name(p.kind), py::arg("doc") = p.doc);
  for (const xrng::DistInfo& d : xrng::kDists) {
    py::list names;
    for (const xrng::ParamInfo& p : xrng::kParams)
      if (xrng::dist_has_param(d.id, p.id)) names.append(p.name);
    dists[d.name] = py::dict(py::arg("kind") = kind_name(d.kind),
                             py::arg("default_dtype") = xrng::dtype_name(d.default_dtype),
                             py::arg("params") = names, py::arg("doc") = d.doc);
  }
  py::list rows;
  for (const xrng::RowInfo& r : xrng::kRows)
    rows.append(py::make_tuple(xrng::dist_name(r.dist), xrng::dtype_name(r.dtype), r.group, r.words, r.version));
  py::dict out;
  out["dtypes"] = dtypes;
  out["params"] = params;
  out["dists"] = dists;
  out["rows"] = rows;
  // draws with a tensor parameter (issue 20): {name: {unit, words, doc}}
  py::dict tensor_draws;
  for (const xrng::TensorDrawInfo& t : xrng::kTensorDraws)
    tensor_draws[t.name] = py::dict(py::arg("unit") = t.unit, py::arg("words") = t.words, py::arg("doc") = t.doc);
  out["tensor_draws"] = tensor_draws;
  return out;
}

// The fill behind draw_ and draw_new: parameters by name, then the draw
// without the GIL.
// A draw into t in stream version `stream` (a Generator's must be its own).
at::Tensor draw_into(at::Tensor t, const Source& source, const std::string& dist, const py::dict& params,
                     const std::string& path, int threads, int stream) {
  // stream: 1 or 2; 0 (from Python, with a Generator's state tensor) its own
  const xrng::Dist d = xrng::parse_dist(dist);
  const xrng::DrawParams q = draw_params(d, params);
  const RunOptions run = run_options(path, threads);
  py::gil_scoped_release nogil;
  if (Generator* const* g = std::get_if<Generator*>(&source)) {
    xrng::torch_api::detail::check_not_capturing(t, c10::Device(c10::kCPU));
    Generator& gen = checked(*g);
    if (stream != gen.stream())
      throw xrng::Error("stream=" + std::to_string(stream) + " but the generator draws stream " +
                        std::to_string(gen.stream()) + " (a generator's stream is fixed: xrng.Generator(..., stream=" +
                        std::to_string(stream) + "))");
    return draw_(t, d, q, gen, run);
  }
  if (const at::Tensor* st = std::get_if<at::Tensor>(&source)) {
    at::Tensor state = *st;
    if (state.scalar_type() != at::kLong || state.numel() != 4 || !state.is_contiguous())
      throw xrng::Error("a generator's state must be a contiguous int64 tensor of 4 elements");
    if (!state.device().is_cpu()) {
      // a generator whose state is in device memory (xrng.Generator(..., device="cuda")): the
      // operators, which advance and read it on the device (nothing read here: no sync, and a
      // CUDA graph capture records the advance); it draws the newest stream version
      if (stream != 0 && stream != xrng::kStreamVersion)
        throw xrng::Error("stream=" + std::to_string(stream) + " but a generator on " + state.device().str() +
                          " draws stream " + std::to_string(xrng::kStreamVersion));
      xrng::torch_api::detail::check_strided(t, dist.c_str());
      std::vector<double> reals;
      std::vector<int64_t> ints;
      split_params(d, q, reals, ints);
      const at::Tensor pos = ops::take_(state, dist, reals, ints, t.scalar_type(), t.numel());
      if (run.path == Path::automatic && run.threads == 0) return ops::draw_(t, dist, reals, ints, pos);
      const DrawPosition p = read_position(pos, dist.c_str());  // a forced path: on the host
      return draw_(t, d, q, p.key, p.offset, run, p.stream);
    }
    xrng::torch_api::detail::check_not_capturing(t, state.device());
    const int own = static_cast<int>(state.data_ptr<int64_t>()[3]);
    if (stream == 0) stream = own;  // Python's "the generator's own"
    if (stream != own)
      throw xrng::Error("stream=" + std::to_string(stream) + " but the generator draws stream " +
                        std::to_string(own) + " (a generator's stream is fixed: xrng.Generator(..., stream=" +
                        std::to_string(stream) + "))");
    xrng::torch_api::detail::check_strided(t, dist.c_str());
    std::vector<double> reals;
    std::vector<int64_t> ints;
    split_params(d, q, reals, ints);
    // the position first (validates the draw and advances the state), then the draw there;
    // eagerly (no dispatch mode: nothing to trace) the take is done here, without a dispatch
    const at::Tensor pos = c10::impl::TorchDispatchModeTLS::stack_len() == 0
                               ? take_direct(state, d, q, t.scalar_type(), t.numel())
                               : ops::take_(state, dist, reals, ints, t.scalar_type(), t.numel());
    if (run.path == Path::automatic && run.threads == 0) return ops::draw_(t, dist, reals, ints, pos);
    const int64_t* v = pos.data_ptr<int64_t>();
    return draw_(t, d, q, xrng::Key(static_cast<uint64_t>(v[0]), static_cast<uint64_t>(v[1])),
                 static_cast<uint64_t>(v[2]), run, stream);
  }
  const auto& [seed, subseq, offset] = std::get<Position>(source);
  return draw_(t, d, q, xrng::Key(seed, subseq), offset, run, stream);
}

// ---- the factories' eager fast path (rand, randn) ------------------------------------------------
// One call from Python for the common eager draw of a new tensor: arguments
// parsed with the CPython API (no pybind11 overload machinery), the
// generator's state advanced and the draw made through the operator
// xrng::draw_ (the dispatcher, a cached handle). Anything unusual (a traced
// or compiled call, a Python mode, a device-side generator state, out=,
// requires_grad, a non-default path, threads= off the CPU, stream=, an argument of an
// unusual type or range, a tensor of 1 GiB or more) returns NotImplemented,
// and python/xrng/__init__.py takes its general path, which checks and
// reports. So the values and errors are those of the general path.
// The draw, through the dispatcher (xrng::draw_, a cached operator handle: ops.cpp): a position tensor
// (the thread's reused scratch, position_tensor) and the operator call cost about 0.15 us more than
// calling the kernel directly, within the per-call target (bench/gpu/bench_small.py).
void fast_fill(at::Tensor& t, xrng::Dist d, const xrng::DrawParams& q, const xrng::Key& key, uint64_t offset,
               int stream) {
  thread_local std::vector<double> reals;
  thread_local std::vector<int64_t> ints;
  split_params(d, q, reals, ints);
  ops::draw_(t, xrng::dist_name(d), reals, ints, position_tensor(key, offset, stream));
}
PyObject* g_state_name = nullptr;  // "_state", interned
PyObject* g_generator_type = nullptr;  // xrng.Generator (set by _fast_init)

bool exact_u64(PyObject* o, uint64_t& v) {
  if (!PyLong_CheckExact(o)) return false;
  const unsigned long long x = PyLong_AsUnsignedLongLong(o);
  if (x == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  v = x;
  return true;
}
// An exact int equal to 0 (no exception left set for a huge one).
bool int_zero(PyObject* o) {
  int overflow = 0;
  return PyLong_CheckExact(o) && PyLong_AsLongAndOverflow(o, &overflow) == 0 && overflow == 0;
}
bool exact_real(PyObject* o, double& v) {
  if (PyFloat_CheckExact(o)) {
    v = PyFloat_AS_DOUBLE(o);
    return true;
  }
  if (!PyLong_CheckExact(o)) return false;
  v = PyLong_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

// _fast_draw(kind, p0, p1, size, seed, subseq, offset, generator, default_generator, out, dtype, device,
//            requires_grad, path, threads, stream): kind 0 uniform(low=p0, high=p1), 1 normal(mean=p0, std=p1)
PyObject* fast_draw(PyObject*, PyObject* const* a, Py_ssize_t n) {
  if (n != 16) {
    PyErr_SetString(PyExc_TypeError, "_fast_draw takes 16 arguments");
    return nullptr;
  }
  if (c10::impl::TorchDispatchModeTLS::stack_len() != 0 || at::impl::PythonTorchFunctionTLS::stack_len() != 0 ||
      !(c10::impl::tls_local_dispatch_key_set().included_ - c10::default_included_set).empty())
    Py_RETURN_NOTIMPLEMENTED;
  // out, requires_grad, path, stream: their defaults only; threads: 0, or a
  // valid count for a CPU draw (below, with the device)
  if (a[9] != Py_None || a[12] != Py_False || a[15] != Py_None || !PyUnicode_CheckExact(a[13]) ||
      PyUnicode_CompareWithASCIIString(a[13], "auto") != 0 || !PyLong_CheckExact(a[14]))
    Py_RETURN_NOTIMPLEMENTED;
  int threads = 0;
  {
    int overflow = 0;
    const long v = PyLong_AsLongAndOverflow(a[14], &overflow);
    if (overflow != 0 || v < 0 || v > xrng::kMaxThreads) Py_RETURN_NOTIMPLEMENTED;  // (the general path reports)
    threads = static_cast<int>(v);
  }
  double p0, p1;
  if (!exact_real(a[1], p0) || !exact_real(a[2], p1)) Py_RETURN_NOTIMPLEMENTED;
  const long kind = PyLong_AsLong(a[0]);
  const xrng::Dist d = kind == 0 ? xrng::Dist::uniform : xrng::Dist::normal;
  const xrng::DrawParams q = kind == 0 ? xrng::DrawParams::range(p0, p1) : xrng::DrawParams::moments(p0, p1);
  // size: ints, or one tuple / list of ints
  PyObject* size = a[3];
  if (!PyTuple_CheckExact(size)) Py_RETURN_NOTIMPLEMENTED;
  if (PyTuple_GET_SIZE(size) == 1 && (PyTuple_CheckExact(PyTuple_GET_ITEM(size, 0)) ||
                                      PyList_CheckExact(PyTuple_GET_ITEM(size, 0))))
    size = PyTuple_GET_ITEM(size, 0);
  const Py_ssize_t dims = PySequence_Fast_GET_SIZE(size);
  if (dims > 64) Py_RETURN_NOTIMPLEMENTED;
  int64_t shape[64];
  uint64_t numel = 1;
  for (Py_ssize_t i = 0; i < dims; ++i) {
    PyObject* s = PySequence_Fast_GET_ITEM(size, i);
    if (!PyLong_CheckExact(s)) Py_RETURN_NOTIMPLEMENTED;
    const long long v = PyLong_AsLongLong(s);
    if (v < 0 || v > (int64_t{1} << 40)) {  // negative, huge or an error: the general path reports
      PyErr_Clear();
      Py_RETURN_NOTIMPLEMENTED;
    }
    shape[i] = v;
    numel *= static_cast<uint64_t>(v);
    if (numel > (uint64_t{1} << 40)) Py_RETURN_NOTIMPLEMENTED;
  }
  at::ScalarType dtype = at::kFloat;
  if (a[10] != Py_None) {
    if (!THPDtype_Check(a[10])) Py_RETURN_NOTIMPLEMENTED;
    dtype = reinterpret_cast<THPDtype*>(a[10])->scalar_type;
  }
  c10::Device device(c10::kCPU);
  if (a[11] != Py_None) {
    if (THPDevice_Check(a[11])) {
      device = reinterpret_cast<THPDevice*>(a[11])->device;
    } else if (PyUnicode_CheckExact(a[11])) {  // "cpu", "cuda", "cuda:1"
      Py_ssize_t len = 0;
      const char* str = PyUnicode_AsUTF8AndSize(a[11], &len);
      if (str == nullptr) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
      }
      try {
        device = c10::Device(std::string(str, static_cast<size_t>(len)));
      } catch (const c10::Error&) {  // the general path reports it
        Py_RETURN_NOTIMPLEMENTED;
      }
    } else {
      Py_RETURN_NOTIMPLEMENTED;
    }
  }
  if (!(device.is_cpu() || device.is_cuda()) || (threads != 0 && !device.is_cpu())) Py_RETURN_NOTIMPLEMENTED;
  if (numel * c10::elementSize(dtype) >= (uint64_t{1} << 30)) Py_RETURN_NOTIMPLEMENTED;
  // the source: seed= (a stateless position) or a generator's CPU state tensor
  uint64_t seed = 0, subseq = 0, offset = 0;
  int stream = xrng::kStreamVersion;
  at::Tensor state;
  if (a[4] != Py_None) {
    if (a[7] != Py_None || !exact_u64(a[4], seed) || !exact_u64(a[5], subseq) || !exact_u64(a[6], offset))
      Py_RETURN_NOTIMPLEMENTED;
  } else {
    if (!int_zero(a[5]) || !int_zero(a[6])) Py_RETURN_NOTIMPLEMENTED;
    PyObject* gen = a[7] != Py_None ? a[7] : a[8];
    if (g_generator_type == nullptr || Py_TYPE(gen) != reinterpret_cast<PyTypeObject*>(g_generator_type))
      Py_RETURN_NOTIMPLEMENTED;
    PyObject* st = PyObject_GetAttr(gen, g_state_name);
    if (st == nullptr) {
      PyErr_Clear();
      Py_RETURN_NOTIMPLEMENTED;
    }
    const bool ok = THPVariable_Check(st);
    if (ok) state = THPVariable_Unpack(st);
    Py_DECREF(st);
    if (!ok || !state.is_cpu() || !state.is_contiguous() || state.scalar_type() != at::kLong || state.numel() != 4)
      Py_RETURN_NOTIMPLEMENTED;
  }
  try {
    at::Tensor t;
    try {
      t = at::empty(c10::IntArrayRef(shape, static_cast<size_t>(dims)), at::TensorOptions().dtype(dtype).device(device));
    } catch (const c10::Error&) {  // a refused allocation: the general path's one-line MemoryError
      Py_RETURN_NOTIMPLEMENTED;
    }
    {
      // a small draw keeps the GIL (releasing it costs more than the draw)
      std::optional<py::gil_scoped_release> nogil;
      if (numel >= 4096) nogil.emplace();
      if (state.defined()) {
        xrng::torch_api::detail::check_not_capturing(t, state.device());
        const DrawPosition p = take_position(state, d, q, dtype, static_cast<int64_t>(numel));
        seed = p.key.seed;
        subseq = p.key.subseq;
        offset = p.offset;
        stream = p.stream;
      }
      if (threads == 0) {
        fast_fill(t, d, q, xrng::Key(seed, subseq), offset, stream);
      } else {  // a thread count: the host draw with it, as the general path's (the same values)
        RunOptions run;
        run.threads = threads;
        xrng::torch_api::draw_(t, d, q, xrng::Key(seed, subseq), offset, run, stream);
      }
    }
    return THPVariable_Wrap(std::move(t));
  } catch (const c10::Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what_without_backtrace());
  } catch (const std::invalid_argument& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}
PyMethodDef g_fast_draw_def = {"_fast_draw", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&fast_draw)),
                               METH_FASTCALL, "The factories' eager fast path (python.cpp): a new tensor, else NotImplemented."};

}  // namespace

void register_torch_cpu(py::module_& m);  // torch_cpu_ops.cpp
void register_torch_cpu_gamma(py::module_& m);  // torch_cpu_gamma_ops.cpp
void register_torch_cpu_poisson(py::module_& m);  // torch_cpu_poisson_ops.cpp
void register_torch_cpu_fast(py::module_& m);  // torch_cpu_fast.cpp
void register_torch_cuda(py::module_& m);  // torch_cuda_ops.cpp

PYBIND11_MODULE(_C, m) {
  m.doc() = "xrng native module: reproducible random tensors (see the xrng package for the documented API)";
  // xrng::Error is a std::invalid_argument: pybind11 raises ValueError.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const c10::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what_without_backtrace());
    }
  });

  register_torch_cpu(m);
  register_torch_cpu_gamma(m);
  register_torch_cpu_poisson(m);
  register_torch_cpu_fast(m);
  register_torch_cuda(m);
  m.attr("stream_version") = xrng::kStreamVersion;
  m.attr("stream_versions") = py::make_tuple(1, 2);
  static_assert(xrng::kOldestStreamVersion == 1 && xrng::kStreamVersion == 2, "update stream_versions");
  m.attr("state_bytes_size") = kStateBytes;
  m.attr("max_threads") = xrng::kMaxThreads;  // threads= takes 0 (all) to max_threads, as the CLI's --threads
  m.def("simd_isa", &xrng::simd_isa, "The host SIMD instruction set in use: avx512 or avx2 (x86-64), neon (AArch64), or none (the scalar path).");
  m.def("set_simd_isa", &xrng::set_simd_isa, py::arg("name"),
        "Forces the host dispatcher below the detected ISA (e.g. avx2, none); False if unavailable.");
  m.def("has_cuda_kernels", &has_cuda_kernels, "Whether CUDA tensors are filled by the CUDA kernels.");
  // The reproducible mode's dispatcher engine (mode.h; python/xrng/_dispatch.py).
  m.def(
      "_mode_begin",
      [](uint64_t seed, uint64_t tag, int stream, xrng::torch_api::mode::ReportFn report, int torch, bool seeded,
         uint32_t sm_count, uint32_t threads_per_sm, int release) {
        xrng::torch_api::mode::Config c;
        c.seed = seed;
        c.tag = tag;
        c.stream = stream;
        c.report = std::move(report);
        c.torch = torch;
        c.seeded = seeded;
        c.sm_count = sm_count;
        c.threads_per_sm = threads_per_sm;
        c.release = release;
        xrng::torch_api::mode::begin(c);
      },
      py::arg("seed"), py::arg("tag"), py::arg("stream"), py::arg("report"), py::arg("torch") = 0,
      py::arg("seeded") = false, py::arg("sm_count") = 0, py::arg("threads_per_sm") = 2048, py::arg("release") = 0,
      "Starts an entry of the dispatcher mode (installs its kernels at the first). torch: 0 xrng's streams, "
      "1 torch-cpu-x86, 2 torch-cpu-scalar, 3 torch-cuda (sm_count, threads_per_sm), 4 torch-cpu-arm, "
      "5 torch-cpu-arm-sve256, 6 torch-cpu-x86-windows, 7 torch-cpu-x86-intel, 8 torch-cpu-x86-intel-avx512, "
      "9 torch-cpu-scalar-intel; release "
      "(torch-cpu only): which torch releases' draws, 0 2.13 on, 1 2.12, 2 2.7 to 2.11, 3 2.3 to 2.6, 4 2.1 and "
      "2.2, 5 2.0, 6 1.13 "
      "(torch_cpu_release).");
  m.def("_mode_end", &xrng::torch_api::mode::end, py::arg("check"),
        "Ends the innermost entry of the dispatcher mode (removes its kernels at the last).");
  m.def("_mode_active", &xrng::torch_api::mode::active, "Whether the dispatcher mode's kernels are installed.");
  m.def("_mode_block_begin", &xrng::torch_api::mode::block_begin, py::arg("global_shape"), py::arg("block_start"),
        py::arg("local_shape"), py::arg("generator"),
        "Starts a DTensor shard's region on this thread: fills of local_shape draw that block of the global draw.");
  m.def("_mode_block_end", &xrng::torch_api::mode::block_end, "Ends the DTensor shard's region of this thread.");
  m.def("_mode_global_position", &xrng::torch_api::mode::global_position,
        "The global stream's [seed, subseq, offset, stream version].");
  m.def(
      "_mode_ops",
      [] {
        py::list l;
        for (const auto& o : xrng::torch_api::mode::mode_ops()) l.append(py::make_tuple(o.name, o.draw, o.words));
        return l;
      },
      "The aten operators the dispatcher mode serves: (name, draw, words).");
  m.def("registry", &registry, R"doc(
The registry of draws (rng/registry.h) as a dict of five tables:
``dtypes`` {name: torch.dtype}, ``params`` {name: {kind, doc}} (kind: real,
integer or count), ``dists`` {name: {kind, default_dtype, params, doc}} (kind:
element, permutation or transform) and ``rows`` [(dist, dtype, G, K, version)]:
groups of G elements consume K stream words (a permutation: K words of key);
and ``tensor_draws`` {name: {unit, words, doc}}, the draws with a tensor
parameter (multinomial: each unit, a sample or a category, reads ``words``
words).)doc");

  // PyTorch's seeding conventions, from rng/keys.h (all modulo 2**64).
  m.def("epoch_seed", &xrng::epoch_seed, py::arg("epoch"),
        "The set_epoch recipe's seed: 123456789 + epoch (mod 2**64).");
  m.def("worker_seed", &xrng::worker_seed, py::arg("base_seed"), py::arg("worker_id"),
        "The seed torch gives DataLoader worker worker_id: base_seed + worker_id (mod 2**64).");
  m.def("numpy_worker_seed", &xrng::numpy_worker_seed, py::arg("initial_seed"),
        "The seed_worker recipe's seed for NumPy and random: initial_seed mod 2**32.");
  m.def("distributed_sampler_seed", &xrng::distributed_sampler_seed, py::arg("seed"), py::arg("epoch"),
        "DistributedSampler's seed for an epoch: seed + epoch (mod 2**64).");

  py::class_<Generator>(m, "Generator", R"doc(
A stateful xrng generator: a key (seed, subseq), a word offset and the
stream version it draws.

Each draw starts at ``offset`` and advances it by the words the draw consumes,
so a sequence of draws from ``Generator(seed, subseq, offset)`` equals draws at
explicit offsets (``xrng gen --offset``). ``stream`` (1 or 2, default the
newest, ``xrng.stream_version``) is the stream version of every draw from it
(SPEC.md section 7); split/fold_in, copies, pickles and saved states keep it,
so a generator restored from a stream-1 state keeps drawing stream 1. The
state is these four integers: no hidden cache. This is the C++
``xrng::Generator`` (host/xrng.h), the one the LibTorch API uses too.

Threads: a generator may be shared by threads. Every draw reserves its word
range atomically (the draw itself runs without the GIL), so concurrent draws
get disjoint ranges and the final ``offset`` is the sum of the words drawn:
the same multiset of values as the same draws made one after another (which
thread gets which range is up to the scheduler, as with torch.Generator).
Setting ``offset``, ``reserve``, ``set_state``, ``split``, ``fold_in``,
``get_state``, copies and pickles are atomic too.)doc")
      .def(py::init([](const py::object& seed, const py::object& subseq, const py::object& offset,
                       const py::object& stream) {
             return Generator(to_u64(seed, "seed"), to_u64(subseq, "subseq"), to_u64(offset, "offset"),
                              to_stream(stream));
           }),
           py::arg("seed") = 0, py::arg("subseq") = 0, py::arg("offset") = 0,
           py::arg("stream") = xrng::kStreamVersion,
           "Generator(seed=0, subseq=0, offset=0, stream=2): integers in [0, 2**64), stream a stream version (1 or "
           "2) (TypeError / ValueError otherwise).")
      .def_property_readonly("stream", &Generator::stream, "The stream version every draw from it is in (1 or 2).")
      .def_property_readonly("seed", [](const Generator& g) { return g.key().seed; }, "The key's seed.")
      .def_property_readonly("subseq", [](const Generator& g) { return g.key().subseq; }, "The key's subsequence.")
      .def_property(
          "offset", &Generator::offset,
          [](Generator& g, const py::object& v) { g.set_offset(to_u64(v, "offset")); },
          "The next word offset to draw from.")
      .def(
          "reserve",
          [](Generator& g, const py::object& words) {
            const uint64_t n = to_u64(words, "words");
            const Generator::Range r = g.reserve_words(n);
            return py::make_tuple(r.key.seed, r.key.subseq, r.offset);
          },
          py::arg("words"),
          "Atomically advances the offset by `words` and returns (seed, subseq, offset) of the position before: the "
          "words [offset, offset + words) of that key are the caller's alone, for a stateless draw (seed=, subseq=, "
          "offset=). ValueError if the offset would pass 2**64 - 1 (the generator is then unchanged).")
      .def("get_state", [](const Generator& g) { return get_state(g); },
           "The state as a 32-byte uint8 CPU tensor ('XRNG', the generator's stream version, seed, subseq, offset).")
      .def("set_state", [](Generator& g, const py::object& t) { set_state(g, state_tensor(t)); }, py::arg("state"),
           "Restores a state from get_state(), its stream version included (a stream-1 state keeps drawing stream "
           "1); ValueError if it is not a state, or of a stream version this library does not produce.")
      .def(
          "state_bytes",
          [](const Generator& g) {
            const auto b = state_bytes(g);
            return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
          },
          "The state as bytes (the same 32 bytes as get_state()).")
      .def(
          "set_state_bytes",
          [](Generator& g, const py::object& b) {
            if (!PyBytes_Check(b.ptr()) && !PyByteArray_Check(b.ptr()))
              throw py::type_error(std::string("Generator.set_state_bytes: expected the bytes of state_bytes(), got ") +
                                   Py_TYPE(b.ptr())->tp_name);
            const py::bytes raw = py::reinterpret_steal<py::bytes>(PyBytes_FromObject(b.ptr()));
            if (!raw) throw py::error_already_set();
            const std::string s = raw;
            set_state_bytes(g, reinterpret_cast<const uint8_t*>(s.data()), s.size());
          },
          py::arg("state"), "Restores a state from state_bytes().")
      .def("split", [](const Generator& g, const py::object& i) { return g.split(to_u64(i, "i")); }, py::arg("i"),
           "The i-th child generator (key split(i)), at offset 0; this generator is unchanged.")
      .def("fold_in", [](const Generator& g, const py::object& d) { return g.fold_in(to_u64(d, "data")); },
           py::arg("data"),
           "A generator on the key folded with `data` (a step, layer or rank), at offset 0.")
      .def(
          "fork",
          [](const Generator& g, const py::object& i) {
            if (PyErr_WarnEx(PyExc_DeprecationWarning, "Generator.fork(i) is deprecated: use Generator.split(i)", 1) <
                0)
              throw py::error_already_set();
            return g.split(to_u64(i, "i"));
          },
          py::arg("i"), "Deprecated name of split(i).")
      .def("clone", [](const Generator& g) { return Generator(g); }, "An independent copy.")
      .def("__copy__", [](const Generator& g) { return Generator(g); })
      .def("__deepcopy__", [](const Generator& g, py::dict) { return Generator(g); }, py::arg("memo"))
      .def("__eq__", [](const Generator& a, const Generator& b) { return a == b; })
      .def("__repr__",
           [](const Generator& g) {
             const Generator c(g);
             return "xrng.Generator(seed=" + std::to_string(c.key().seed) + ", subseq=" +
                    std::to_string(c.key().subseq) + ", offset=" + std::to_string(c.offset()) +
                    ", stream=" + std::to_string(c.stream()) + ")";
           })
      // Pickles: (seed, subseq, offset, stream); the 3-tuples of the releases
      // before stream 2 are stream-1 generators (__setstate__ still reads
      // the pickles of earlier releases).
      .def(py::pickle([](const Generator& g) { return fields(g); },
                      [](const py::tuple& t) {
                        if (t.size() != 3 && t.size() != 4) throw xrng::Error("Generator: bad pickled state");
                        return Generator(to_u64(t[0], "seed"), to_u64(t[1], "subseq"), to_u64(t[2], "offset"),
                                         t.size() == 4 ? to_stream(t[3]) : 1);
                      }))
      // Every pickle protocol reduces to a constructor call,
      // Generator(seed, subseq, offset, stream): pybind11's own reduction
      // aborts the interpreter under protocols 0 and 1 (copyreg's
      // _reconstructor cannot make a pybind11 instance).
      .def("__reduce__", [](const py::object& self) {
        return py::make_tuple(self.attr("__class__"), fields(self.cast<const Generator&>()));
      });

  // The fills. Every in-place function of the Python package is one draw_
  // call with its distribution's parameters by name (registry.h,
  // XRNG_PARAMS), from a Source: a Generator or a stateless stream position.
  m.def(
      "draw_",
      [](at::Tensor t, const py::object& source, const std::string& dist, const py::dict& params,
         const std::string& path, int threads, int stream) {
        return draw_into(t, to_source(source), dist, params, path, threads, stream);
      },
      py::arg("tensor"), py::arg("source"), py::arg("dist"), py::arg("params"), py::arg("path"),
      py::arg("threads"), py::arg("stream") = xrng::kStreamVersion,
      "Fills `tensor` with a draw of `dist` (an element or permutation distribution of the registry), parameters by "
      "name (registry()['dists'][dist]['params']). source: a Generator (advanced by the draw) or a (seed, subseq, "
      "offset) tuple (a stateless draw, which may end exactly at word 2**64). stream: the stream version (a "
      "Generator's must be its own).");
  m.def(
      "draw_new",
      [](const std::vector<int64_t>& size, at::ScalarType dtype, const at::Device& device, const py::object& src,
         const std::string& dist, const py::dict& params, const std::string& path, int threads, int stream) {
        for (int64_t s : size)
          if (s < 0) throw xrng::Error("negative dimension " + std::to_string(s));
        at::Tensor t = at::empty(size, at::TensorOptions().dtype(dtype).device(device));
        return draw_into(t, to_source(src), dist, params, path, threads, stream);
      },
      py::arg("size"), py::arg("dtype"), py::arg("device"), py::arg("source"), py::arg("dist"), py::arg("params"),
      py::arg("path"), py::arg("threads"), py::arg("stream") = xrng::kStreamVersion,
      "draw_ into a new contiguous tensor of `size`, `dtype` on `device` (a torch.device): the factories' path, "
      "allocating in C++ (a torch.empty call from Python costs more than a small draw).");
  g_state_name = PyUnicode_InternFromString("_state");
  m.attr("_fast_draw") = py::reinterpret_steal<py::object>(PyCFunction_New(&g_fast_draw_def, nullptr));
  m.def(
      "_fast_init", [](const py::object& generator_type) { g_generator_type = generator_type.inc_ref().ptr(); },
      "Registers xrng.Generator for _fast_draw.");
  m.def(
      "dropout_out",
      [](at::Tensor out, const at::Tensor& in, double p, const py::object& src, const std::string& path, int threads) {
        const Source source = to_source(src);
        const RunOptions run = run_options(path, threads);
        py::gil_scoped_release nogil;
        if (Generator* const* g = std::get_if<Generator*>(&source)) {
          xrng::torch_api::detail::check_not_capturing(out, c10::Device(c10::kCPU));
          return dropout_out(out, in, p, checked(*g), run);
        }
        if (const at::Tensor* st = std::get_if<at::Tensor>(&source)) {
          at::Tensor state = *st;
          xrng::torch_api::detail::check_not_capturing(out, state.device());
          const at::Tensor pos = ops::take_(state, "dropout", {p}, {}, in.scalar_type(), in.numel());
          // a generator state on the GPU: the position stays there, the kernel reads it
          if (run.path == Path::automatic && run.threads == 0 && xrng::torch_api::detail::device_position(pos, out))
            return dropout_at_device(out, in, p, pos);
          const DrawPosition v = read_position(pos, "dropout");
          return dropout_out(out, in, p, v.key, v.offset, run);
        }
        const auto& [seed, subseq, offset] = std::get<Position>(source);
        return dropout_out(out, in, p, xrng::Key(seed, subseq), offset, run);
      },
      py::arg("out"), py::arg("input"), py::arg("p"), py::arg("source"), py::arg("path"), py::arg("threads"),
      "out = dropout(input) with the Bernoulli(p) mask of the draw at `source` (as for draw_).");
  const auto nogil = py::call_guard<py::gil_scoped_release>();
  m.def(
      "perm_shard_",
      [](at::Tensor out, uint64_t n, uint64_t seed, uint64_t subseq, uint64_t offset, uint64_t rank, uint64_t world,
         uint64_t start, const std::string& path, int threads) {
        return perm_shard_out(out, n, xrng::Key(seed, subseq), offset, rank, world, start,
                              run_options(path, threads));
      },
      py::arg("out"), py::arg("n"), py::arg("seed"), py::arg("subseq"), py::arg("offset"), py::arg("rank"),
      py::arg("world"), py::arg("start"), py::arg("path"), py::arg("threads"), nogil);
  m.def(
      "perm_element",
      [](uint64_t seed, uint64_t subseq, uint64_t offset, uint64_t n, uint64_t i) {
        return xrng::perm_element(xrng::Key(seed, subseq), offset, n, i);
      },
      py::arg("seed"), py::arg("subseq"), py::arg("offset"), py::arg("n"), py::arg("i"));
  m.def(
      "perm_position",
      [](uint64_t seed, uint64_t subseq, uint64_t offset, uint64_t n, uint64_t value) {
        return xrng::perm_position(xrng::Key(seed, subseq), offset, n, value);
      },
      py::arg("seed"), py::arg("subseq"), py::arg("offset"), py::arg("n"), py::arg("value"));
}
