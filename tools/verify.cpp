// xrng verify: the cross-backend conformance table.
#include "verify.h"

#include <cinttypes>
#include <cstdio>
#include <functional>
#include <sstream>
#include <thread>

#include "host/xrng.h"
#include "sha256.h"
#include "tests/golden.h"
#if defined(XRNG_HAVE_CUDA)
#include "device/xrng_cuda_host.h"
#endif

extern const char* const kXrngGoldenText;  // tests/data/golden_v1.txt, embedded at build time

namespace xrng::tools {
namespace {

// A backend computes a golden case / a draw into a host buffer.
struct BackendDef {
  std::string name;
  std::function<void(const xrng_test::GoldenCase&, const Plan&, void*)> run;
};

FillOptions opts(Backend b, int threads) {
  FillOptions o;
  o.backend = b;
  o.threads = threads;
  return o;
}

void run_host(const xrng_test::GoldenCase& c, const Plan& p, void* out, const FillOptions& o) {
  const Key key(c.seed, c.subseq);
  if (c.op == "fill") {
    fill(p, key, c.offset, c.start, c.count, out, o);
  } else if (c.op == "dropout") {
    const auto in = xrng_test::from_bits(c.dtype, c.in);
    dropout(p, key, c.offset, c.start, c.count, in.data(), out, o);
  } else if (c.op == "perm_shard") {
    perm_shard(p, key, c.offset, c.rank, c.world, c.start, c.count, out, o);
  } else if (c.op == "perm_inverse") {
    perm_inverse(p, key, c.offset, c.start, c.count, out, o);
  } else {
    throw Error("unknown golden op " + c.op);
  }
}

std::vector<BackendDef> backends() {
  std::vector<BackendDef> v;
  const std::string isa = simd_isa();
  v.push_back({"cpu-scalar", [](const auto& c, const Plan& p, void* o) {
                 run_host(c, p, o, opts(Backend::scalar, 1));
               }});
  // One column per SIMD ISA this CPU runs; the dispatcher is forced to each.
  std::vector<std::string> isas;
  if (isa == "avx512") isas = {"avx2", "avx512"};
  if (isa == "avx2") isas = {"avx2"};
  for (const std::string& i : isas)
    v.push_back({"cpu-" + i, [i, isa](const auto& c, const Plan& p, void* o) {
                   set_simd_isa(i);
                   try {
                     run_host(c, p, o, opts(Backend::simd, 1));
                   } catch (...) {
                     set_simd_isa(isa);
                     throw;
                   }
                   set_simd_isa(isa);
                 }});
  const unsigned hw = std::max(2u, std::thread::hardware_concurrency());
  v.push_back({"cpu-threads", [hw](const auto& c, const Plan& p, void* o) {
                 run_host(c, p, o, opts(Backend::automatic, static_cast<int>(hw) + 1));
               }});
#if defined(XRNG_HAVE_CUDA)
  if (cuda::available()) {
    v.push_back({"cuda", [](const auto& c, const Plan& p, void* o) {
                   const Key key(c.seed, c.subseq);
                   if (c.op == "fill") {
                     cuda::fill_to_host(p, key, c.offset, c.start, c.count, o);
                   } else if (c.op == "dropout") {
                     const auto in = xrng_test::from_bits(c.dtype, c.in);
                     cuda::dropout_to_host(p, key, c.offset, c.start, c.count, in.data(), o);
                   } else if (c.op == "perm_shard") {
                     cuda::perm_shard_to_host(p, key, c.offset, c.rank, c.world, c.start, c.count, o);
                   } else {
                     // perm_inverse: the GPU API has it on device pointers only; check via the host path
                     run_host(c, p, o, opts(Backend::automatic, 1));
                   }
                 }});
  }
#endif
  return v;
}

std::vector<xrng_test::GoldenCase> golden_cases() {
  std::vector<xrng_test::GoldenCase> cases;
  std::istringstream in(kXrngGoldenText);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    size_t i = line.find_first_not_of(" \t\r");
    if (i == std::string::npos || line[i] == '#') continue;
    cases.push_back(xrng_test::parse_golden(line, n));
  }
  return cases;
}

std::string fingerprint(const void* p, uint64_t bytes) {
  Sha256 h;
  h.update(p, bytes);
  return h.hex();
}

// The standard cross-check draw of a dist/dtype: an odd offset, a start inside a
// group, a count that is not a multiple of any vector width.
xrng_test::GoldenCase standard_case(Dist d, DType t, uint64_t count) {
  xrng_test::GoldenCase c;
  c.dist = d;
  c.dtype = t;
  c.seed = 20261123;
  c.subseq = 7;
  c.offset = 5;
  c.start = 3;
  c.count = count;
  switch (d) {
    case Dist::uniform: c.params.low = -2.5; c.params.high = 7.25; break;
    case Dist::normal: c.params.mean = 0.5; c.params.std = 2.0; break;
    case Dist::bernoulli: c.params.p = 0.3; break;
    case Dist::dropout: c.params.p = 0.25; break;
    case Dist::randint: c.params.ilow = -1000; c.params.ihigh = 123457; break;
    case Dist::perm: c.params.n = count + c.start + 1000; break;
    default: break;
  }
  if (d == Dist::dropout) {
    c.op = "dropout";
    // A deterministic input: element i is (i mod 17) - 8 in the dtype.
    c.in.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      const float x = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.375f;
      if (t == DType::f32) c.in[i] = math::as_u32(x);
      else if (t == DType::f64) c.in[i] = math::as_u64(static_cast<double>(x));
      else if (t == DType::f16) c.in[i] = math::f32_to_f16_bits(x);
      else c.in[i] = math::f32_to_bf16_bits(x);
    }
  }
  return c;
}

}  // namespace

int cmd_verify(const std::vector<std::string>& args) {
  bool quick = false;
  for (const std::string& a : args) {
    if (a == "--quick") quick = true;
    else throw Error("verify: unknown argument '" + a + "'");
  }
  const auto bes = backends();
  std::string cuda_desc = "not built";
#if defined(XRNG_HAVE_CUDA)
  cuda_desc = cuda::available() ? cuda::device_name() : "built, no device present";
#endif
  std::printf("xrng verify: stream v%d, cpu simd=%s, threads=%u, cuda: %s\n", kStreamVersion, simd_isa(),
              std::thread::hardware_concurrency(), cuda_desc.c_str());
  bool all_ok = true;

  // 1. golden vectors on every backend
  const auto cases = golden_cases();
  std::printf("\ngolden vectors (tests/data/golden_v1.txt, %zu cases):\n", cases.size());
  for (const auto& be : bes) {
    size_t ok = 0;
    std::string first_bad;
    for (const auto& c : cases) {
      const Plan p = c.plan();
      std::vector<unsigned char> buf(c.count * dtype_size(c.dtype) + 8);
      try {
        be.run(c, p, buf.data());
        if (xrng_test::to_bits(c.dtype, buf.data(), c.count) == c.out) ++ok;
        else if (first_bad.empty()) first_bad = c.name();
      } catch (const std::exception& e) {
        if (first_bad.empty()) first_bad = c.name() + " (" + e.what() + ")";
      }
    }
    const bool pass = ok == cases.size() && !cases.empty();
    all_ok = all_ok && pass;
    std::printf("  %-12s %4zu/%zu  %s%s\n", be.name.c_str(), ok, cases.size(), pass ? "PASS" : "FAIL",
                first_bad.empty() ? "" : ("  first mismatch: " + first_bad).c_str());
  }

  // 2. every backend against the scalar reference, every distribution and dtype
  const uint64_t count = quick ? 4099 : (1u << 20) + 7;
  std::printf("\ncross-backend table (seed 20261123, subseq 7, offset 5, start 3, count %" PRIu64
              "; SHA-256 of the output bytes, first 16 hex digits):\n",
              count);
  std::printf("  %-15s", "draw");
  for (const auto& be : bes) std::printf(" %-17s", be.name.c_str());
  std::printf(" match\n");
  struct Row {
    Dist d;
    DType t;
  };
  const Row rows[] = {{Dist::bits, DType::u32},      {Dist::bits, DType::u64},      {Dist::uniform, DType::f32},
                      {Dist::uniform, DType::f64},   {Dist::uniform, DType::f16},   {Dist::uniform, DType::bf16},
                      {Dist::normal, DType::f32},    {Dist::normal, DType::f64},    {Dist::normal, DType::f16},
                      {Dist::normal, DType::bf16},   {Dist::bernoulli, DType::u8},  {Dist::dropout, DType::f32},
                      {Dist::dropout, DType::f64},   {Dist::dropout, DType::f16},   {Dist::dropout, DType::bf16},
                      {Dist::randint, DType::i32},   {Dist::randint, DType::i64},   {Dist::perm, DType::i64},
                      {Dist::perm, DType::i32}};
  for (const Row& r : rows) {
    const auto c = standard_case(r.d, r.t, count);
    const Plan p = c.plan();
    std::string label = std::string(dist_name(r.d)) + "/" + dtype_name(r.t);
    std::printf("  %-15s", label.c_str());
    std::string ref;
    bool row_ok = true;
    for (const auto& be : bes) {
      std::vector<unsigned char> buf(c.count * dtype_size(c.dtype) + 8);
      std::string fp;
      try {
        be.run(c, p, buf.data());
        fp = fingerprint(buf.data(), c.count * dtype_size(c.dtype));
      } catch (const std::exception& e) {
        fp = std::string("error: ") + e.what();
      }
      if (ref.empty()) ref = fp;
      row_ok = row_ok && fp == ref && fp.rfind("error", 0) != 0;
      std::printf(" %-17s", fp.substr(0, 16).c_str());
    }
    std::printf(" %s\n", row_ok ? "yes" : "NO");
    all_ok = all_ok && row_ok;
  }
  std::printf("\n%s\n", all_ok ? "verify: all backends agree with the reference and the golden vectors"
                               : "verify: MISMATCH (see above)");
  return all_ok ? 0 : 1;
}

}  // namespace xrng::tools
