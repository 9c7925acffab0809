// xrng verify: the cross-backend conformance table.
//
// Two checks, each on every backend this binary and machine have (a column
// per backend, every value of a column computed by the backend it names):
//  1. the golden vectors of every stream version (tests/data/golden_v1.txt
//     and golden_v2.txt, compiled into the binary by the xrng_golden
//     library) reproduced bit for bit: a column per stream version;
//  2. one draw per registry row (golden::row_plans(): a row added to the
//     registry gets a line here with no edit; the rows of every stream
//     version, each labelled with the versions that use it), hashed, against
//     the scalar reference;
//  3. one block of a 3-d global tensor per registry row (host/xrng.h
//     fill_block / transform_block, xrng::cuda::fill_block_to_host), hashed,
//     against the block's slice of the scalar reference's full draw.
#include "verify.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "golden/embedded.h"
#include "golden/format.h"
#include "golden/sample_params.h"
#include "host/xrng.h"
#include "sha256.h"
#if defined(XRNG_HAVE_CUDA)
#include "device/xrng_cuda_host.h"
#endif

namespace xrng::tools {
namespace {

using golden::GoldenCase;

// A backend computes a golden case (with its validated plan) into a host
// buffer, and a block of a global tensor (a transform's input in `in`).
struct BackendDef {
  std::string name;
  std::function<void(const GoldenCase&, const Plan&, void*)> run;
  std::function<void(const Plan&, const Key&, uint64_t, const TensorBlock&, const void*, void*)> block;
};

void block_host(const Plan& p, const Key& k, uint64_t off, const TensorBlock& b, const void* in, void* out,
                const FillOptions& o) {
  if (p.kind == Kind::transform)
    transform_block(p, k, off, b, in, out, o);
  else
    fill_block(p, k, off, b, out, o);
}
// Runs f with the SIMD dispatcher forced to `isa`, restoring the detected one.
template <class F>
void with_isa(const std::string& isa, const std::string& detected, F&& f) {
  set_simd_isa(isa);
  try {
    f();
  } catch (...) {
    set_simd_isa(detected);
    throw;
  }
  set_simd_isa(detected);
}

FillOptions opts(Backend b, int threads) {
  FillOptions o;
  o.backend = b;
  o.threads = threads;
  return o;
}

void run_host(const GoldenCase& c, const Plan& p, void* out, const FillOptions& o) {
  const Key key(c.seed, c.subseq);
  if (c.op == "fill") {
    fill(p, key, c.offset, c.start, c.count, out, o);
  } else if (c.op == "dropout") {  // the golden file's name for a transform draw
    const auto in = golden::from_bits(c.dtype, c.in);
    transform(p, key, c.offset, c.start, c.count, in.data(), out, o);
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
  v.push_back({"cpu-scalar", [](const auto& c, const Plan& p, void* o) { run_host(c, p, o, opts(Backend::scalar, 1)); },
               [](const Plan& p, const Key& k, uint64_t off, const TensorBlock& b, const void* in, void* o) {
                 block_host(p, k, off, b, in, o, opts(Backend::scalar, 1));
               }});
  // One column per SIMD ISA this CPU runs; the dispatcher is forced to each.
  // (simd_isas(): "none", then every ISA of this build that this CPU runs,
  // e.g. avx2 and avx512 on x86-64, neon on AArch64.)
  for (const std::string& i : simd_isas()) {
    if (i == "none") continue;
    v.push_back({"cpu-" + i,
                 [i, isa](const auto& c, const Plan& p, void* o) {
                   with_isa(i, isa, [&] { run_host(c, p, o, opts(Backend::simd, 1)); });
                 },
                 [i, isa](const Plan& p, const Key& k, uint64_t off, const TensorBlock& b, const void* in, void* o) {
                   with_isa(i, isa, [&] { block_host(p, k, off, b, in, o, opts(Backend::simd, 1)); });
                 }});
  }
  const unsigned hw = std::max(2u, std::thread::hardware_concurrency());
  v.push_back({"cpu-threads",
               [hw](const auto& c, const Plan& p, void* o) {
                 run_host(c, p, o, opts(Backend::automatic, static_cast<int>(hw) + 1));
               },
               [hw](const Plan& p, const Key& k, uint64_t off, const TensorBlock& b, const void* in, void* o) {
                 block_host(p, k, off, b, in, o, opts(Backend::automatic, static_cast<int>(hw) + 1));
               }});
#if defined(XRNG_HAVE_CUDA)
  if (cuda::available()) {
    v.push_back({"cuda", [](const auto& c, const Plan& p, void* o) {
                   const Key key(c.seed, c.subseq);
                   if (c.op == "fill") {
                     cuda::fill_to_host(p, key, c.offset, c.start, c.count, o);
                   } else if (c.op == "dropout") {
                     const auto in = golden::from_bits(c.dtype, c.in);
                     cuda::transform_to_host(p, key, c.offset, c.start, c.count, in.data(), o);
                   } else if (c.op == "perm_shard") {
                     cuda::perm_shard_to_host(p, key, c.offset, c.rank, c.world, c.start, c.count, o);
                   } else if (c.op == "perm_inverse") {
                     cuda::perm_inverse_to_host(p, key, c.offset, c.start, c.count, o);
                   } else {
                     throw Error("unknown golden op " + c.op);
                   }
                 },
                 [](const Plan& p, const Key& k, uint64_t off, const TensorBlock& b, const void* in, void* o) {
                   if (p.kind == Kind::transform)
                     cuda::transform_block_to_host(p, k, off, b, in, o);
                   else
                     cuda::fill_block_to_host(p, k, off, b, o);
                 }});
  }
#endif
  return v;
}

std::string fingerprint(const void* p, uint64_t bytes) {
  Sha256 h;
  h.update(p, bytes);
  return h.hex();
}

// The cross-check draw of a registry row: an odd offset, a start inside a
// group, a count that is not a multiple of any vector width; the parameters
// are the row's plan from golden::row_plans(). A permutation is made larger
// than the draw (its size is the one parameter a permutation kind has); a
// transform gets a deterministic input, element i being (i mod 17 - 8) * 0.375.
GoldenCase standard_case(const golden::RowPlan& rp, uint64_t count) {
  GoldenCase c;
  c.dist = rp.row->dist;
  c.dtype = rp.row->dtype;
  c.params = rp.params;
  c.stream = rp.plan.stream;  // the row's own stream version: every row of every version is drawn
  c.seed = 20261123;
  c.subseq = 7;
  c.offset = 5;
  c.start = 3;
  c.count = count;
  switch (dist_kind(c.dist)) {
    case Kind::element: break;
    case Kind::permutation: c.params.n = c.start + count + 1000; break;
    case Kind::transform: {
      c.op = "dropout";
      c.in.resize(count);
      for (uint64_t i = 0; i < count; ++i) {
        const float x = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.375f;
        switch (c.dtype) {
          case DType::f32: c.in[i] = math::as_u32(x); break;
          case DType::f64: c.in[i] = math::as_u64(static_cast<double>(x)); break;
          case DType::f16: c.in[i] = math::f32_to_f16_bits(x); break;
          case DType::bf16: c.in[i] = math::f32_to_bf16_bits(x); break;
          default: throw Error(std::string("verify: no transform input of dtype ") + dtype_name(c.dtype));
        }
      }
      break;
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
  std::printf("xrng verify: streams v1..v%d, cpu simd=%s, threads=%u, cuda: %s\n", kStreamVersion, simd_isa(),
              std::thread::hardware_concurrency(), cuda_desc.c_str());
  bool all_ok = true;

  // 1. golden vectors on every backend: a column per stream version
  constexpr int kVersions[] = {1, 2};
  static_assert(kStreamVersion == 2, "verify: add the new stream version's golden file");
  std::vector<GoldenCase> cases[std::size(kVersions)];
  std::string files;
  for (size_t k = 0; k < std::size(kVersions); ++k) {
    cases[k] = golden::parse_golden_text(std::string(golden::embedded_text(kVersions[k])));
    for (const GoldenCase& c : cases[k])
      if (c.stream != kVersions[k]) throw Error("verify: " + golden::golden_file_name(kVersions[k]) + " " + c.name() +
                                                " is not of its stream");
    files += std::string(files.empty() ? "" : "; ") + "tests/data/" + golden::golden_file_name(kVersions[k]) + ", " +
             std::to_string(cases[k].size()) + " cases";
  }
  std::printf("\ngolden vectors (%s):\n", files.c_str());
  std::printf("  %-12s", "backend");
  for (int v : kVersions) std::printf("  %-20s", ("stream v" + std::to_string(v)).c_str());
  std::printf("\n");
  for (const auto& be : bes) {
    std::printf("  %-12s", be.name.c_str());
    std::string first_bad;
    for (size_t k = 0; k < std::size(kVersions); ++k) {
      size_t ok = 0;
      for (const auto& c : cases[k]) {
        std::vector<unsigned char> buf(c.count * dtype_size(c.dtype) + 8);
        try {
          be.run(c, c.plan(), buf.data());
          if (golden::to_bits(c.dtype, buf.data(), c.count) == c.out) ++ok;
          else if (first_bad.empty()) first_bad = c.name();
        } catch (const std::exception& e) {
          if (first_bad.empty()) first_bad = c.name() + " (" + e.what() + ")";
        }
      }
      const bool pass = ok == cases[k].size() && !cases[k].empty();
      all_ok = all_ok && pass;
      char cell[64];
      std::snprintf(cell, sizeof cell, "%zu/%zu %s", ok, cases[k].size(), pass ? "PASS" : "FAIL");
      std::printf("  %-20s", cell);
    }
    std::printf("%s\n", first_bad.empty() ? "" : ("  first mismatch: " + first_bad).c_str());
  }

  // 2. every backend against the scalar reference, one draw per registry row.
  // The quick count is still above three times the host's per-thread minimum
  // (2^15 elements), so that cpu-threads splits the draw across threads.
  const uint64_t count = quick ? (3u << 15) + 7 : (1u << 20) + 7;
  std::printf("\ncross-backend table (seed 20261123, subseq 7, offset 5, start 3, count %" PRIu64
              "; SHA-256 of the output bytes, first 16 hex digits):\n",
              count);
  const std::vector<golden::RowPlan> rows = golden::row_plans();
  int label_width = 4;
  for (const golden::RowPlan& rp : rows)
    label_width = std::max<int>(label_width, std::strlen(dist_name(rp.row->dist)) + 1 + std::strlen(dtype_name(rp.row->dtype)));
  // The stream versions that use a row (registry.h, find_row): "1,2" for a row
  // stream 2 keeps, "1" for one it redefines, "2" for its redefinition.
  auto streams_of = [](const RowInfo& r) {
    std::string s;
    for (int v = kOldestStreamVersion; v <= kStreamVersion; ++v)
      if (find_row(r.dist, r.dtype, v) == &r) s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
  };
  std::printf("  %-*s %-7s", label_width, "draw", "streams");
  for (const auto& be : bes) std::printf(" %-17s", be.name.c_str());
  std::printf(" match\n");
  for (const golden::RowPlan& rp : rows) {
    const GoldenCase c = standard_case(rp, count);
    const std::string label = std::string(dist_name(c.dist)) + "/" + dtype_name(c.dtype);
    std::printf("  %-*s %-7s", label_width, label.c_str(), streams_of(*rp.row).c_str());
    std::string ref;
    bool row_ok = true;
    for (const auto& be : bes) {
      std::vector<unsigned char> buf(c.count * dtype_size(c.dtype) + 8);
      std::string fp;
      try {
        be.run(c, c.plan(), buf.data());
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
  // 3. block draws: every backend, one block of a 3-d global tensor per row,
  // against the block's slice of the scalar reference's full draw. The block
  // splits groups at its run edges (odd starts and widths), its runs are
  // short (one per row of the last dimension) and, unless --quick, it is large
  // enough for cpu-threads to split it.
  const TensorBlock blk = quick ? TensorBlock{{5, 37, 41}, {1, 3, 5}, {3, 30, 33}}
                                : TensorBlock{{8, 129, 257}, {1, 3, 5}, {6, 122, 245}};
  const BlockLayout bl = BlockLayout::make(blk);
  std::printf("\nblock draws (shape %s, block start %s size %s: %" PRIu64
              " of %" PRIu64 " elements, %" PRIu64 " runs; seed 20261123, subseq 7, offset 5; SHA-256 of the block's bytes, "
              "first 16 hex digits):\n",
              detail::dims_text(blk.shape).c_str(), detail::dims_text(blk.start).c_str(),
              detail::dims_text(blk.size).c_str(), bl.count, bl.global_count, bl.runs);
  std::printf("  %-*s %-7s %-17s", label_width, "draw", "streams", "slice of full");
  for (const auto& be : bes) std::printf(" %-17s", be.name.c_str());
  std::printf(" match\n");
  for (const golden::RowPlan& rp : rows) {
    Plan p = rp.plan;
    if (p.kind == Kind::permutation) {
      DrawParams q = rp.params;
      q.n = bl.global_count;
      p = make_plan(rp.row->dist, rp.row->dtype, q, rp.plan.stream);
    }
    const Key key(20261123, 7);
    const uint64_t es = static_cast<uint64_t>(dtype_size(p.dtype));
    // the full draw on the scalar reference, and its slice
    GoldenCase full = standard_case(rp, bl.global_count);
    full.params = p.kind == Kind::permutation ? DrawParams::perm_size(bl.global_count) : full.params;
    full.start = 0;
    std::vector<unsigned char> fbuf(bl.global_count * es + 8), want(bl.count * es + 8), in(bl.count * es + 8);
    const auto gin = golden::from_bits(p.dtype, full.in);
    std::string ref;
    try {
      run_host(full, p, fbuf.data(), opts(Backend::scalar, 1));
      bl.for_each_piece(0, bl.count, [&](uint64_t j, uint64_t g, uint64_t m) {
        std::memcpy(want.data() + j * es, fbuf.data() + g * es, m * es);
        if (p.kind == Kind::transform) std::memcpy(in.data() + j * es, gin.data() + g * es, m * es);
      });
      ref = fingerprint(want.data(), bl.count * es);
    } catch (const std::exception& e) {
      ref = std::string("error: ") + e.what();
    }
    const std::string label = std::string(dist_name(p.dist)) + "/" + dtype_name(p.dtype);
    std::printf("  %-*s %-7s %-17s", label_width, label.c_str(), streams_of(*rp.row).c_str(), ref.substr(0, 16).c_str());
    bool row_ok = ref.rfind("error", 0) != 0;
    for (const auto& be : bes) {
      std::vector<unsigned char> buf(bl.count * es + 8);
      std::string fp;
      try {
        be.block(p, key, 5, blk, in.data(), buf.data());
        fp = fingerprint(buf.data(), bl.count * es);
      } catch (const std::exception& e) {
        fp = std::string("error: ") + e.what();
      }
      row_ok = row_ok && fp == ref;
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
