// xrng._C: the Python face of the LibTorch API (bindings/xrng_torch.h). Thin:
// it converts arguments and exceptions, and holds no arithmetic; the
// Python-side signatures (torch-like sizes, dtypes, defaults) live in
// python/xrng/__init__.py.
#include <torch/csrc/utils/pybind.h>

#include <pybind11/stl.h>

#include <string>

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
  RunOptions r;
  r.path = parse_path(path);
  r.threads = threads;
  return r;
}

}  // namespace

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

  m.attr("stream_version") = xrng::kStreamVersion;
  m.def("simd_isa", &xrng::simd_isa, "The host SIMD instruction set in use: avx512, avx2 or none.");
  m.def("set_simd_isa", &xrng::set_simd_isa, py::arg("name"),
        "Forces the host dispatcher below the detected ISA (avx2, none); False if unavailable.");
  m.def("has_cuda_kernels", &has_cuda_kernels, "Whether CUDA tensors are filled by the CUDA kernels.");

  py::class_<Generator>(m, "Generator", R"doc(
A stateful xrng generator: a key (seed, subseq) and a word offset.

Each draw starts at ``offset`` and advances it by the words the draw consumes,
so a sequence of draws from ``Generator(seed, subseq, offset)`` equals draws at
explicit offsets (``xrng gen --offset``). The state is three integers: no
hidden cache.)doc")
      .def(py::init<uint64_t, uint64_t, uint64_t>(), py::arg("seed") = 0, py::arg("subseq") = 0,
           py::arg("offset") = 0)
      .def_property_readonly("seed", &Generator::seed)
      .def_property_readonly("subseq", &Generator::subseq)
      .def_property("offset", &Generator::offset, &Generator::set_offset, "The next word offset to draw from.")
      .def("get_state", &Generator::get_state,
           "The state as a 32-byte uint8 CPU tensor ('XRNG', stream version, seed, subseq, offset).")
      .def("set_state", &Generator::set_state, py::arg("state"), "Restores a state from get_state().")
      .def(
          "state_bytes",
          [](const Generator& g) {
            const auto b = g.state_bytes();
            return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
          },
          "The state as bytes (the same 32 bytes as get_state()).")
      .def(
          "set_state_bytes",
          [](Generator& g, const py::bytes& b) {
            const std::string s = b;
            g.set_state_bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
          },
          py::arg("state"))
      .def("fork", &Generator::fork, py::arg("i"),
           "The i-th child generator (key split(i)), at offset 0; this generator is unchanged.")
      .def("fold_in", &Generator::fold_in, py::arg("data"),
           "A generator on the key folded with `data` (a step, layer or rank), at offset 0.")
      .def("clone", [](const Generator& g) { return Generator(g); }, "An independent copy.")
      .def("__copy__", [](const Generator& g) { return Generator(g); })
      .def("__deepcopy__", [](const Generator& g, py::dict) { return Generator(g); }, py::arg("memo"))
      .def("__eq__", [](const Generator& a, const Generator& b) { return a.state_bytes() == b.state_bytes(); })
      .def("__repr__",
           [](const Generator& g) {
             return "xrng.Generator(seed=" + std::to_string(g.seed()) + ", subseq=" + std::to_string(g.subseq()) +
                    ", offset=" + std::to_string(g.offset()) + ")";
           })
      .def(py::pickle(
          [](const Generator& g) { return py::make_tuple(g.seed(), g.subseq(), g.offset()); },
          [](const py::tuple& t) {
            if (t.size() != 3) throw xrng::Error("Generator: bad pickled state");
            return Generator(t[0].cast<uint64_t>(), t[1].cast<uint64_t>(), t[2].cast<uint64_t>());
          }));

  const auto nogil = py::call_guard<py::gil_scoped_release>();
  m.def(
      "uniform_",
      [](at::Tensor t, Generator& g, double low, double high, const std::string& path, int threads) {
        return uniform_(t, g, low, high, run_options(path, threads));
      },
      py::arg("tensor"), py::arg("generator"), py::arg("low"), py::arg("high"), py::arg("path"), py::arg("threads"),
      nogil);
  m.def(
      "normal_",
      [](at::Tensor t, Generator& g, double mean, double std, const std::string& path, int threads) {
        return normal_(t, g, mean, std, run_options(path, threads));
      },
      py::arg("tensor"), py::arg("generator"), py::arg("mean"), py::arg("std"), py::arg("path"), py::arg("threads"),
      nogil);
  m.def(
      "randint_",
      [](at::Tensor t, Generator& g, int64_t low, int64_t high, const std::string& path, int threads) {
        return randint_(t, low, high, g, run_options(path, threads));
      },
      py::arg("tensor"), py::arg("generator"), py::arg("low"), py::arg("high"), py::arg("path"), py::arg("threads"),
      nogil);
  m.def(
      "bernoulli_",
      [](at::Tensor t, Generator& g, double p, const std::string& path, int threads) {
        return bernoulli_(t, p, g, run_options(path, threads));
      },
      py::arg("tensor"), py::arg("generator"), py::arg("p"), py::arg("path"), py::arg("threads"), nogil);
  m.def(
      "randperm_",
      [](at::Tensor t, Generator& g, const std::string& path, int threads) {
        xrng::DrawParams q;
        q.n = static_cast<uint64_t>(t.numel());
        const xrng::Plan plan = xrng::make_plan(xrng::Dist::perm, draw_dtype(xrng::Dist::perm, t.scalar_type()), q);
        return fill_(t, plan, g, run_options(path, threads));
      },
      py::arg("tensor"), py::arg("generator"), py::arg("path"), py::arg("threads"), nogil);
  m.def(
      "bits_",
      [](at::Tensor t, Generator& g, const std::string& path, int threads) {
        const xrng::Plan plan =
            xrng::make_plan(xrng::Dist::bits, draw_dtype(xrng::Dist::bits, t.scalar_type()), xrng::DrawParams{});
        return fill_(t, plan, g, run_options(path, threads));
      },
      py::arg("tensor"), py::arg("generator"), py::arg("path"), py::arg("threads"), nogil);
  m.def(
      "draw_",
      [](at::Tensor t, Generator& g, const std::string& dist, const py::dict& params, const std::string& path,
         int threads) {
        // Any element distribution of the registry, parameters by name (registry.h, XRNG_PARAMS).
        const xrng::Dist d = xrng::parse_dist(dist);
        xrng::DrawParams q;
        for (const auto& item : params) {
          const std::string name = py::str(item.first);
          const xrng::ParamInfo* info = nullptr;
          for (const xrng::ParamInfo& pi : xrng::kParams)
            if (name == pi.name) info = &pi;
          if (info == nullptr || !xrng::dist_has_param(d, info->id))
            throw xrng::Error(dist + ": unknown parameter '" + name + "'");
          switch (info->kind) {
            case xrng::ParamKind::real: q.set_real(info->id, item.second.cast<double>()); break;
            case xrng::ParamKind::integer: q.set_integer(info->id, item.second.cast<int64_t>()); break;
            case xrng::ParamKind::count: q.set_count(info->id, item.second.cast<uint64_t>()); break;
          }
        }
        const xrng::Plan plan = xrng::make_plan(d, draw_dtype(d, t.scalar_type()), q);
        py::gil_scoped_release nogil;
        return fill_(t, plan, g, run_options(path, threads));
      },
      py::arg("tensor"), py::arg("generator"), py::arg("dist"), py::arg("params"), py::arg("path"),
      py::arg("threads"));
  m.def(
      "dropout_out",
      [](at::Tensor out, const at::Tensor& in, double p, Generator& g, const std::string& path, int threads) {
        return dropout_out(out, in, p, g, run_options(path, threads));
      },
      py::arg("out"), py::arg("input"), py::arg("p"), py::arg("generator"), py::arg("path"), py::arg("threads"),
      nogil);
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
