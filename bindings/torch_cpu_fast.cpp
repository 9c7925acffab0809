// The per-call fast paths of xrng.torch_cpu (python/xrng/_torch_cpu.py): the
// same draws as torch_cpu_ops.cpp's entry points (every value from
// torch_streams.h's cpu_draw / cpu_bernoulli_tensor, rng/torch_cpu.h), with
// the Python-side work of a small call moved here: the output allocated in
// C++, the arguments read without pybind11's conversions. A small draw's
// cost is mostly that work (bench/torch_cpu.py: torch's own randn(16) takes
// about 1.5 us).
#include <torch/extension.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>
#include <ATen/PythonTorchFunctionTLS.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <ATen/EmptyTensor.h>
#include <c10/core/DefaultDtype.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "torch_streams.h"

namespace py = pybind11;
namespace tc = xrng::torch_cpu;

namespace {

// The state tensor's bytes (a contiguous CPU uint8 tensor of torch's 5056), else throws.
uint8_t* state_bytes(const at::Tensor& st) {
  if (st.device().type() != at::kCPU || st.scalar_type() != at::kByte || !st.is_contiguous() ||
      st.numel() != static_cast<int64_t>(tc::kTorchStateBytes))
    throw std::invalid_argument("torch_cpu state must be a contiguous CPU uint8 tensor of 5056 bytes");
  return st.data_ptr<uint8_t>();
}

// The checks python/xrng/_torch_cpu.py's TorchCPUGenerator._fill makes on draw `kind`'s
// parameters (and cauchy's floating dtype): false where it would raise.
bool passes_checks(const char* kind, double a, double b, at::ScalarType dt) {
  if (std::strcmp(kind, "normal") == 0) return b >= 0.0;
  if (std::strcmp(kind, "uniform") == 0) return a <= b && std::isfinite(a) && std::isfinite(b);
  if (std::strcmp(kind, "exponential") == 0) return a > 0.0;
  if (std::strcmp(kind, "geometric") == 0) return a > 0.0 && a < 1.0;
  if (std::strcmp(kind, "cauchy") == 0) return b > 0.0 && at::isFloatingType(dt);
  if (std::strcmp(kind, "log_normal") == 0) return b > 0.0;
  return true;
}

// Whether a call here is torch's plain dispatch: no torch function or
// dispatch mode (torch.set_default_device's included) and no extra
// dispatch keys. Every fast entry returns NotImplemented otherwise.
bool plain_dispatch() {
  return c10::impl::TorchDispatchModeTLS::stack_len() == 0 && at::impl::PythonTorchFunctionTLS::stack_len() == 0 &&
         (c10::impl::tls_local_dispatch_key_set().included_ - c10::default_included_set).empty();
}

PyObject* g_state_attr = nullptr;   // "state", interned
PyObject* g_kernel_attr = nullptr;  // "kernel", interned
PyObject* g_release_attr = nullptr;  // "_release", interned

// _torch_cpu_new(generator, kind, size, dtype, default_dtype, a, b) and
// _torch_cpu_into(generator, kind, out, a, b): the common calls of
// TorchCPUGenerator (python/xrng/_torch_cpu.py) in one C++ call each, the
// same draw as its general path (torch_cpu_draw) or NotImplemented, and the
// caller takes that general path, which checks and reports (so the errors
// are its own): for anything else than exact ints (randint's bounds, the
// sizes) and floats or ints (the other parameters), parameters its checks
// refuse, a draw that refuses its arguments (std::invalid_argument, thrown
// before the state is written back), and, for _new, under a torch function
// or dispatch mode (torch.set_default_device's included) or extra dispatch
// keys. `size`: the factories' *size (ints, or one tuple, list or
// torch.Size of ints); `dtype` None: `default_dtype`, None: torch's default.
// _into: `out` a contiguous CPU tensor, else NotImplemented.
bool read_params(const char* kind, PyObject* pa, PyObject* pb, double& a, double& b, int64_t& ilow, int64_t& ihigh) {
  if (std::strcmp(kind, "randint") == 0 || std::strcmp(kind, "random_from") == 0) {  // (random_from: from, 0)
    if (!PyLong_CheckExact(pa) || !PyLong_CheckExact(pb)) return false;
    int of1 = 0, of2 = 0;
    ilow = PyLong_AsLongLongAndOverflow(pa, &of1);
    ihigh = PyLong_AsLongLongAndOverflow(pb, &of2);
    if (of1 != 0 || of2 != 0 || PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    return true;
  }
  for (int i = 0; i < 2; ++i) {
    PyObject* o = i == 0 ? pa : pb;
    double& v = i == 0 ? a : b;
    if (PyFloat_CheckExact(o)) {
      v = PyFloat_AS_DOUBLE(o);
    } else if (PyLong_CheckExact(o)) {
      v = PyLong_AsDouble(o);
      if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

// The generator's state bytes, kernel and release, or false (a subclass that changed them, say).
bool read_generator(PyObject* gen, at::Tensor& state, tc::Kernel& k, tc::Release& r) {
  PyObject* st = PyObject_GetAttr(gen, g_state_attr);
  if (st == nullptr) {
    PyErr_Clear();
    return false;
  }
  const bool ok = THPVariable_Check(st);
  if (ok) state = THPVariable_Unpack(st);
  Py_DECREF(st);
  if (!ok || state.device().type() != at::kCPU || state.scalar_type() != at::kByte || !state.is_contiguous() ||
      state.numel() != static_cast<int64_t>(tc::kTorchStateBytes))
    return false;
  PyObject* kn = PyObject_GetAttr(gen, g_kernel_attr);
  if (kn == nullptr) {
    PyErr_Clear();
    return false;
  }
  const char* ks = PyUnicode_Check(kn) ? PyUnicode_AsUTF8(kn) : nullptr;
  const bool known = ks != nullptr && tc::kernel_named(ks, k);
  Py_DECREF(kn);
  if (!known) {
    PyErr_Clear();
    return false;
  }
  PyObject* rn = PyObject_GetAttr(gen, g_release_attr);  // TorchCPUGenerator._release: a Release's number
  if (rn == nullptr) {
    PyErr_Clear();
    return false;
  }
  const long rv = PyLong_CheckExact(rn) ? PyLong_AsLong(rn) : -1;
  Py_DECREF(rn);
  if (rv < 0 || rv >= tc::kReleaseCount) {
    PyErr_Clear();
    return false;
  }
  r = static_cast<tc::Release>(rv);
  return true;
}

// Every fast entry's draw: f(state, kernel) on the generator's state (read
// by read_generator), which returns the result tensor or nullopt; the state
// is written back only after f returned a result, which is returned to
// Python. NotImplemented (nothing written: the caller's general path
// reports) where the generator is not read, f returns nullopt or anything
// throws (a refused allocation, a dtype or parameter a draw refuses).
template <class F>
PyObject* with_state(PyObject* gen, F&& f) {
  at::Tensor state;
  tc::Kernel k = tc::Kernel::x86;
  tc::Release r = tc::Release::r2_13;
  if (!read_generator(gen, state, k, r)) Py_RETURN_NOTIMPLEMENTED;
  try {
    uint8_t* bytes = state.data_ptr<uint8_t>();
    tc::State s = tc::from_torch_state(bytes, tc::kTorchStateBytes);
    std::optional<at::Tensor> res = f(s, k, r);
    if (!res.has_value()) Py_RETURN_NOTIMPLEMENTED;
    tc::to_torch_state(s, bytes);
    return THPVariable_Wrap(std::move(*res));  // (an existing tensor: its own Python object)
  } catch (const std::exception&) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
}

PyObject* fast_new(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 7) {
    PyErr_SetString(PyExc_TypeError, "_torch_cpu_new takes 7 arguments");
    return nullptr;
  }
  if (!plain_dispatch()) Py_RETURN_NOTIMPLEMENTED;
  if (!PyUnicode_Check(args[1])) Py_RETURN_NOTIMPLEMENTED;
  const char* kind = PyUnicode_AsUTF8(args[1]);
  if (kind == nullptr) return nullptr;
  PyObject* size = args[2];
  if (!PyTuple_Check(size) && !PyList_Check(size)) Py_RETURN_NOTIMPLEMENTED;
  if (PySequence_Fast_GET_SIZE(size) == 1) {
    PyObject* s0 = PySequence_Fast_GET_ITEM(size, 0);
    if (PyTuple_Check(s0) || PyList_Check(s0)) size = s0;  // torch.Size: a tuple
  }
  const Py_ssize_t dims = PySequence_Fast_GET_SIZE(size);
  if (dims > 64) Py_RETURN_NOTIMPLEMENTED;
  int64_t shape[64];
  for (Py_ssize_t i = 0; i < dims; ++i) {
    PyObject* o = PySequence_Fast_GET_ITEM(size, i);
    if (!PyLong_CheckExact(o)) Py_RETURN_NOTIMPLEMENTED;
    int of = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &of);
    if (of != 0 || v < 0 || v > (int64_t{1} << 48)) {
      PyErr_Clear();
      Py_RETURN_NOTIMPLEMENTED;
    }
    shape[i] = v;
  }
  at::ScalarType dt;
  PyObject* d = args[3] != Py_None ? args[3] : args[4];
  if (d == Py_None) dt = c10::get_default_dtype_as_scalartype();
  else if (THPDtype_Check(d)) dt = reinterpret_cast<THPDtype*>(d)->scalar_type;
  else Py_RETURN_NOTIMPLEMENTED;
  double a = 0.0, b = 0.0;
  int64_t ilow = 0, ihigh = 0;
  if (!read_params(kind, args[5], args[6], a, b, ilow, ihigh) || !passes_checks(kind, a, b, dt)) Py_RETURN_NOTIMPLEMENTED;
  return with_state(args[0], [&](tc::State& s, tc::Kernel k, tc::Release r) -> std::optional<at::Tensor> {
    at::Tensor out = at::detail::empty_cpu(c10::IntArrayRef(shape, static_cast<size_t>(dims)), dt);
    xrng::torch_streams::cpu_draw(s, kind, k, out, a, b, ilow, ihigh, r);
    return out;
  });
}

PyObject* fast_into(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError, "_torch_cpu_into takes 5 arguments");
    return nullptr;
  }
  if (!PyUnicode_Check(args[1]) || !THPVariable_Check(args[2])) Py_RETURN_NOTIMPLEMENTED;
  const char* kind = PyUnicode_AsUTF8(args[1]);
  if (kind == nullptr) return nullptr;
  at::Tensor out = THPVariable_Unpack(args[2]);
  if (out.device().type() != at::kCPU || !out.is_contiguous() || out.layout() != at::kStrided) Py_RETURN_NOTIMPLEMENTED;
  double a = 0.0, b = 0.0;
  int64_t ilow = 0, ihigh = 0;
  if (!read_params(kind, args[3], args[4], a, b, ilow, ihigh) || !passes_checks(kind, a, b, out.scalar_type()))
    Py_RETURN_NOTIMPLEMENTED;
  return with_state(args[0], [&](tc::State& s, tc::Kernel k, tc::Release r) -> std::optional<at::Tensor> {
    xrng::torch_streams::cpu_draw(s, kind, k, out, a, b, ilow, ihigh, r);
    return out;
  });
}

// _torch_cpu_bernoulli_new(generator, p, dtype): torch.bernoulli(p) (a new
// tensor of p's shape and `dtype`, None: p's) from a torch_cpu generator
// (cpu_bernoulli_tensor), or NotImplemented (xrng.bernoulli's general path):
// p not a contiguous CPU floating tensor, a p outside [0, 1], a dtype the
// draw lacks, a torch function or dispatch mode.
PyObject* bernoulli_new(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "_torch_cpu_bernoulli_new takes 3 arguments");
    return nullptr;
  }
  if (!plain_dispatch() || !THPVariable_Check(args[1]))
    Py_RETURN_NOTIMPLEMENTED;
  const at::Tensor& p = THPVariable_Unpack(args[1]);
  if (p.device().type() != at::kCPU || p.layout() != at::kStrided || !p.is_contiguous() || !p.is_floating_point())
    Py_RETURN_NOTIMPLEMENTED;
  at::ScalarType dt = p.scalar_type();
  if (args[2] != Py_None) {
    if (!THPDtype_Check(args[2])) Py_RETURN_NOTIMPLEMENTED;
    dt = reinterpret_cast<THPDtype*>(args[2])->scalar_type;
  }
  return with_state(args[0], [&](tc::State& s, tc::Kernel, tc::Release) -> std::optional<at::Tensor> {
    at::Tensor out = at::detail::empty_cpu(p.sizes(), dt);
    xrng::torch_streams::cpu_bernoulli_tensor(s, out, p);
    return out;
  });
}

// multinomial with replacement, n > 1 (cpu_multinomial), of contiguous CPU
// weights of 1 or 2 dims: int64 [n] or [rows, n]. Its errors are
// cpu_multinomial's (ValueError), before the state is written.
at::Tensor multinomial_rows(at::Tensor state, const at::Tensor& w, int64_t n) {
  uint8_t* bytes = state_bytes(state);
  if (!w.device().is_cpu() || !w.is_contiguous() || w.dim() < 1 || w.dim() > 2)
    throw std::invalid_argument("torch_cpu multinomial: weights must be a contiguous CPU tensor of 1 or 2 dims");
  tc::State s = tc::from_torch_state(bytes, tc::kTorchStateBytes);
  at::Tensor out = xrng::torch_streams::cpu_multinomial(s, w, n);  // ([k] weights: [n])
  tc::to_torch_state(s, bytes);
  return out;
}

PyMethodDef g_bernoulli_def = {"_torch_cpu_bernoulli_new",
                               reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&bernoulli_new)),
                               METH_FASTCALL,
                               "_torch_cpu_bernoulli_new(generator, p, dtype): torch.bernoulli(p) from a torch_cpu "
                               "generator, or NotImplemented (torch_cpu_fast.cpp)."};

PyMethodDef g_new_def = {"_torch_cpu_new", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&fast_new)),
                         METH_FASTCALL,
                         "_torch_cpu_new(generator, kind, size, dtype, default_dtype, a, b): a new tensor drawn from a "
                         "torch_cpu generator, or NotImplemented (torch_cpu_fast.cpp)."};
PyMethodDef g_into_def = {"_torch_cpu_into", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&fast_into)),
                          METH_FASTCALL,
                          "_torch_cpu_into(generator, kind, out, a, b): `out` drawn from a torch_cpu generator, or "
                          "NotImplemented (torch_cpu_fast.cpp)."};

// torch.multinomial without replacement, or with one sample (torch's
// Gumbel-max composite, ATen/native/Distributions.cpp multinomial_out):
// weights w (contiguous CPU, 1 or 2 dims, floating, checked by the caller
// for shape and n) checked for inf/nan/negative entries and zero rows as
// torch checks them; q = empty_like(w).exponential_(1) from the stream;
// then argmax(w / q) (n = 1, keepdim) or topk(w / q, n)'s indices, with
// torch's own operations (q's exponential_ of `kernel` and release number
// `release`). python/xrng/_torch_cpu.py multinomial's path.
at::Tensor multinomial_gumbel(at::Tensor state, const at::Tensor& w, int64_t n, const std::string& kernel,
                              int release) {
  tc::Kernel k;
  if (!tc::kernel_named(kernel.c_str(), k))
    throw std::invalid_argument(std::string("kernel must be ") + tc::kKernelNames + ", got '" + kernel + "'");
  if (release < 0 || release >= tc::kReleaseCount)
    throw std::invalid_argument("torch_cpu release must be 0 to " + std::to_string(tc::kReleaseCount - 1));
  uint8_t* bytes = state_bytes(state);
  if (!w.device().is_cpu() || !w.is_contiguous() || w.dim() < 1 || w.dim() > 2 || !w.is_floating_point())
    throw std::invalid_argument("torch_cpu multinomial: weights must be a contiguous CPU floating tensor of 1 or 2 dims");
  if (!((w.max() < INFINITY) & (w.min() >= 0)).item<bool>())
    throw std::invalid_argument("multinomial: probability tensor contains either `inf`, `nan` or element < 0");
  if ((w.sum(-1) == 0).any().item<bool>())
    throw std::invalid_argument("multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
  at::Tensor q = at::empty_like(w, at::MemoryFormat::Contiguous);
  tc::State s = tc::from_torch_state(bytes, tc::kTorchStateBytes);
  xrng::torch_streams::cpu_draw(s, "exponential", k, q, 1.0, 0.0, 0, 0, static_cast<tc::Release>(release));
  tc::to_torch_state(s, bytes);
  at::div_out(q, w, q);
  if (n == 1) return q.argmax(-1, true);
  return std::get<1>(at::topk(q, n));
}

// _torch_cpu_multinomial(generator, input, n, replacement): xrng.multinomial's
// common call in one C++ call: input a contiguous CPU float32/float64 tensor
// of 1 or 2 dims that needs no grad, n and replacement exact int and bool
// that torch takes (n >= 1, n <= k without replacement, k <= 2^24);
// multinomial_gumbel or multinomial_rows; NotImplemented otherwise or
// wherever they refuse (nothing drawn: the general path reports it).
PyObject* multinomial_fast(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4) {
    PyErr_SetString(PyExc_TypeError, "_torch_cpu_multinomial takes 4 arguments");
    return nullptr;
  }
  if (!plain_dispatch() || !THPVariable_Check(args[1]) || !PyLong_CheckExact(args[2]) || !PyBool_Check(args[3]))
    Py_RETURN_NOTIMPLEMENTED;
  const at::Tensor& w = THPVariable_Unpack(args[1]);
  int of = 0;
  const long long n = PyLong_AsLongLongAndOverflow(args[2], &of);
  const bool repl = args[3] == Py_True;
  if (of != 0 || n < 1 || w.device().type() != at::kCPU || w.layout() != at::kStrided || !w.is_contiguous() ||
      w.requires_grad() || (w.scalar_type() != at::kFloat && w.scalar_type() != at::kDouble) || w.dim() < 1 ||
      w.dim() > 2 || w.numel() == 0) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  const int64_t k = w.size(-1);
  if (k > (int64_t{1} << 24) || (!repl && n > k)) Py_RETURN_NOTIMPLEMENTED;
  return with_state(args[0], [&](tc::State& s, tc::Kernel kernel, tc::Release r) -> std::optional<at::Tensor> {
    if (!repl || n == 1) {
      // torch's checks (multinomial_out), then q = empty_like(w).exponential_(1), w / q, argmax or topk
      if (!((w.max() < INFINITY) & (w.min() >= 0)).item<bool>()) return std::nullopt;
      const bool zero = w.dim() == 1 ? (w.sum() == 0).item<bool>() : (w.sum(1) == 0).any().item<bool>();
      if (zero) return std::nullopt;
      at::Tensor q = at::detail::empty_cpu(w.sizes(), w.scalar_type());
      xrng::torch_streams::cpu_draw(s, "exponential", kernel, q, 1.0, 0.0, 0, 0, r);
      at::div_out(q, w, q);
      return n == 1 ? q.argmax(-1, true) : std::get<1>(at::topk(q, n));
    }
    // cpu_multinomial's checks (every row before the first word) and rows, into res directly
    const int64_t rows = w.dim() == 1 ? 1 : w.size(0);
    at::Tensor res = w.dim() == 1 ? at::detail::empty_cpu({n}, at::kLong) : at::detail::empty_cpu({rows, n}, at::kLong);
    if (xrng::torch_streams::cpu_multinomial_rows(s, w, rows, k, n, res.data_ptr<int64_t>()) != 0) return std::nullopt;
    return res;
  });
}
PyMethodDef g_multinomial_def = {"_torch_cpu_multinomial",
                                 reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&multinomial_fast)),
                                 METH_FASTCALL,
                                 "_torch_cpu_multinomial(generator, input, n, replacement): xrng.multinomial from a "
                                 "torch_cpu generator, or NotImplemented (torch_cpu_fast.cpp)."};


// _torch_cpu_param(generator, what, *params): xrng.gamma / dirichlet /
// poisson / binomial's common call with a torch_cpu generator
// (python/xrng/_gamma.py) in one C++ call: `what` "gamma", "dirichlet" (one
// param), "poisson" (one) or "binomial" (count, prob: one shape and dtype),
// the params contiguous strided CPU tensors that need no grad (dirichlet's
// of at least one dim); torch_streams' cpu_standard_gamma, cpu_dirichlet,
// cpu_poisson or cpu_binomial on the generator's state, written back after
// the draw. NotImplemented otherwise, under a torch function or dispatch
// mode or extra dispatch keys, and wherever the draw refuses (nothing
// written: the general path, _torch_cpu.tensor_param, reports it).
PyObject* param_fast(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 3 || nargs > 4 || !PyUnicode_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "_torch_cpu_param takes a generator, a draw name and 1 or 2 tensors");
    return nullptr;
  }
  if (!plain_dispatch()) Py_RETURN_NOTIMPLEMENTED;
  const char* what = PyUnicode_AsUTF8(args[1]);
  if (what == nullptr) return nullptr;
  const bool two = std::strcmp(what, "binomial") == 0;
  if (nargs != (two ? 4 : 3)) Py_RETURN_NOTIMPLEMENTED;
  for (Py_ssize_t i = 2; i < nargs; ++i) {
    if (!THPVariable_Check(args[i])) Py_RETURN_NOTIMPLEMENTED;
    const at::Tensor& t = THPVariable_Unpack(args[i]);
    if (t.device().type() != at::kCPU || t.layout() != at::kStrided || !t.is_contiguous() || t.requires_grad() ||
        !t.is_floating_point())
      Py_RETURN_NOTIMPLEMENTED;
  }
  const at::Tensor& p0 = THPVariable_Unpack(args[2]);
  if (two) {
    const at::Tensor& p1 = THPVariable_Unpack(args[3]);
    if (p0.sizes() != p1.sizes() || p0.scalar_type() != p1.scalar_type()) Py_RETURN_NOTIMPLEMENTED;
  }
  return with_state(args[0], [&](tc::State& s, tc::Kernel, tc::Release) -> std::optional<at::Tensor> {
    namespace ts = xrng::torch_streams;
    if (two) return ts::cpu_binomial(s, p0, THPVariable_Unpack(args[3]));
    if (std::strcmp(what, "gamma") == 0) return ts::cpu_standard_gamma(s, p0);
    if (std::strcmp(what, "poisson") == 0) return ts::cpu_poisson(s, p0);
    if (std::strcmp(what, "dirichlet") == 0 && p0.dim() >= 1) return ts::cpu_dirichlet(s, p0);
    return std::nullopt;
  });
}
PyMethodDef g_param_def = {"_torch_cpu_param", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&param_fast)),
                           METH_FASTCALL,
                           "_torch_cpu_param(generator, what, *params): xrng.gamma / dirichlet / poisson / binomial "
                           "from a torch_cpu generator, or NotImplemented (torch_cpu_fast.cpp)."};

// _torch_cpu_dropout(generator, input, p, training, inplace): xrng.dropout's
// common call with a torch_cpu generator (python/xrng/_torch_cpu.py
// dropout, torch's at::native::_dropout) in one C++ call: a contiguous CPU
// floating input, p a float or int in (0, 1), training True, inplace a
// bool: noise = bernoulli_(1 - p) in memory order, noise / (1 - p), then
// input * noise (or input.mul_(noise)) with torch's own operations (so
// autograd records them). The state is written back only when all of it
// succeeded; NotImplemented otherwise (nothing drawn: the general path
// reports), under a torch function or dispatch mode or extra dispatch keys.
PyObject* dropout_fast(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 5) {
    PyErr_SetString(PyExc_TypeError, "_torch_cpu_dropout takes 5 arguments");
    return nullptr;
  }
  if (!plain_dispatch() || !THPVariable_Check(args[1]) || args[3] != Py_True || !PyBool_Check(args[4]))
    Py_RETURN_NOTIMPLEMENTED;
  double p = 0.0, unused = 0.0;
  int64_t i0 = 0, i1 = 0;
  if (!read_params("dropout", args[2], args[2], p, unused, i0, i1) || !(p > 0.0) ||
      !(p < 1.0))
    Py_RETURN_NOTIMPLEMENTED;
  const at::Tensor& input = THPVariable_Unpack(args[1]);
  if (input.device().type() != at::kCPU || input.layout() != at::kStrided || !input.is_contiguous() ||
      !input.is_floating_point() || input.numel() == 0)
    Py_RETURN_NOTIMPLEMENTED;
  const bool inplace = args[4] == Py_True;
  return with_state(args[0], [&](tc::State& s, tc::Kernel k, tc::Release r) -> std::optional<at::Tensor> {
    at::Tensor noise = at::detail::empty_cpu(input.sizes(), input.scalar_type());
    xrng::torch_streams::cpu_draw(s, "bernoulli", k, noise, 1.0 - p, 0.0, 0, 0, r);
    noise.div_(1.0 - p);
    return inplace ? input.mul_(noise) : input * noise;
  });
}
PyMethodDef g_dropout_def = {"_torch_cpu_dropout",
                             reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&dropout_fast)), METH_FASTCALL,
                             "_torch_cpu_dropout(generator, input, p, training, inplace): xrng.dropout from a torch_cpu "
                             "generator, or NotImplemented (torch_cpu_fast.cpp)."};

}  // namespace

void register_torch_cpu_fast(py::module_& m) {
  g_state_attr = PyUnicode_InternFromString("state");
  g_kernel_attr = PyUnicode_InternFromString("kernel");
  g_release_attr = PyUnicode_InternFromString("_release");
  m.attr("_torch_cpu_new") = py::reinterpret_steal<py::object>(PyCFunction_New(&g_new_def, nullptr));
  m.attr("_torch_cpu_into") = py::reinterpret_steal<py::object>(PyCFunction_New(&g_into_def, nullptr));
  m.attr("_torch_cpu_multinomial") = py::reinterpret_steal<py::object>(PyCFunction_New(&g_multinomial_def, nullptr));
  m.attr("_torch_cpu_param") = py::reinterpret_steal<py::object>(PyCFunction_New(&g_param_def, nullptr));
  m.attr("_torch_cpu_dropout") = py::reinterpret_steal<py::object>(PyCFunction_New(&g_dropout_def, nullptr));
  m.attr("_torch_cpu_bernoulli_new") = py::reinterpret_steal<py::object>(PyCFunction_New(&g_bernoulli_def, nullptr));
  m.def("torch_cpu_multinomial_rows", &multinomial_rows, py::arg("state"), py::arg("weights"), py::arg("n"),
        "multinomial with replacement (n > 1) on the torch CPU stream: contiguous CPU weights of 1 or 2 dims; int64 "
        "[n] or [rows, n], advancing `state` in place.");
  m.def("torch_cpu_multinomial_gumbel", &multinomial_gumbel, py::arg("state"), py::arg("weights"), py::arg("n"),
        py::arg("kernel"), py::arg("release"),
        "multinomial without replacement (or n = 1) on the torch CPU stream: contiguous CPU floating weights of 1 or "
        "2 dims; argmax (n = 1, keepdim) or topk indices of weights / Exp(1) (`kernel`'s exponential_ of release "
        "number `release`), advancing `state` in place.");
}
