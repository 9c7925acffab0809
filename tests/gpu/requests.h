// The requests the CUDA tests run, and their CPU reference, shared by the
// CPU-only test (test_cuda_host.cpp: the kernels' chunk bodies on the CPU)
// and the GPU test (test_cuda.cu: the kernels).
//
// Every list here is derived from the registry and the golden file, never
// written by hand: the plans under test are, for every registry row, each
// sample parameter set of its distribution (golden/sample_params.h) and each
// distinct parameter set the golden file uses for that row (its edge cases:
// empty-ish ranges, p = 0 and 1, n up to 2^63, ...). A row added to
// XRNG_ROWS is tested here with no test edit.
//
// The reference is the core's scalar evaluation (rng/detail/rows.h:
// reference_fill, reference_transform, Row::at / position) and, for shards,
// perm_shard_at per element (an exact reduction for every element, not the
// stepping walk the kernels share with the host). Nothing from host/.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/format.h"
#include "golden/sample_params.h"
#include "rng/detail/rows.h"
#include "rng/keys.h"

namespace xrng_gpu_test {

using namespace xrng;

// Fixed-seed test-case generator (splitmix64).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
};

// "dist/dtype", for messages (doctest prints a const char* argument as a pointer).
inline std::string row_name(Dist d, DType t) { return std::string(dist_name(d)) + "/" + dtype_name(t); }
inline std::string row_name(const Plan& p) { return row_name(p.dist, p.dtype); }

// What a request asks of the backend: the entry point of each kind of row
// (fill: element and permutation rows; transform: transform rows; shards and
// inverses: permutation rows).
enum class Op { fill, transform, perm_shard, perm_inverse };

inline const char* op_name(Op op) {
  switch (op) {
    case Op::fill: return "fill";
    case Op::transform: return "transform";
    case Op::perm_shard: return "perm_shard";
    case Op::perm_inverse: return "perm_inverse";
  }
  return "?";
}

struct Request {
  Op op = Op::fill;
  Plan plan;
  Key key;
  uint64_t offset = 0, start = 0, count = 0;
  uint64_t rank = 0, world = 1;   // perm_shard
  std::vector<unsigned char> in;  // transform: count elements of plan.dtype

  uint64_t bytes() const { return count * static_cast<uint64_t>(dtype_size(plan.dtype)); }
  std::string describe() const {
    std::string s = std::string(op_name(op)) + " " + row_name(plan) +
                    " seed=" + std::to_string(key.seed) + " subseq=" + std::to_string(key.subseq) +
                    " offset=" + std::to_string(offset) + " start=" + std::to_string(start) +
                    " count=" + std::to_string(count);
    if (plan.kind == Kind::permutation) s += " n=" + std::to_string(plan.n);
    if (op == Op::perm_shard) s += " rank=" + std::to_string(rank) + " world=" + std::to_string(world);
    return s;
  }
};

// The ops a plan of each kind is tested with.
inline std::vector<Op> ops_of(const Plan& p) {
  switch (p.kind) {
    case Kind::element: return {Op::fill};
    case Kind::transform: return {Op::transform};
    case Kind::permutation: return {Op::fill, Op::perm_shard, Op::perm_inverse};
  }
  return {};
}

// ---- the CPU reference -----------------------------------------------------------------------
// The core's scalar evaluation of a request (validated by the core first:
// check_counters throws xrng::Error on a request the backends must refuse).
inline std::vector<unsigned char> reference(const Request& q) {
  if (q.op == Op::perm_shard) {
    check_counters(q.plan, q.offset, 0, 0);
  } else {
    check_counters(q.plan, q.offset, q.start, q.count);
  }
  std::vector<unsigned char> out(q.bytes() + 8);  // +8: never a zero-sized buffer
  const Stream s = q.key.stream();
  const bool known = visit_row(q.plan, [&]<class R>() {
    using O = typename R::out_t;
    O* o = reinterpret_cast<O*>(out.data());
    if constexpr (R::kind == Kind::element) {
      if (q.op != Op::fill) throw std::logic_error("reference: element rows are only filled");
      reference_fill<R>(q.plan, s, q.offset, q.start, q.count, o);
    } else if constexpr (R::kind == Kind::transform) {
      if (q.op != Op::transform || q.in.size() != q.bytes()) throw std::logic_error("reference: transform input");
      std::vector<O> x(q.count);
      if (q.count) std::memcpy(x.data(), q.in.data(), q.in.size());
      reference_transform<R>(q.plan, s, q.offset, q.start, q.count, x.data(), o);
    } else {
      const PermKey k = perm_key(s, q.offset, q.plan.n);
      for (uint64_t i = 0; i < q.count; ++i) {
        switch (q.op) {
          case Op::fill: o[i] = R::at(k, q.start + i); break;
          case Op::perm_inverse: o[i] = R::position(k, q.start + i); break;
          case Op::perm_shard: o[i] = static_cast<O>(perm_shard_at(k, q.rank, q.world, q.start + i)); break;
          case Op::transform: throw std::logic_error("reference: permutations transform nothing");
        }
      }
    }
  });
  if (!known) throw std::logic_error("reference: the plan has no registry row");
  out.resize(q.bytes());
  return out;
}

// ---- the golden file ---------------------------------------------------------------------------
inline Op golden_op(const std::string& op) {
  if (op == "fill") return Op::fill;
  if (op == "dropout" || op == "transform") return Op::transform;
  if (op == "perm_shard") return Op::perm_shard;
  if (op == "perm_inverse") return Op::perm_inverse;
  throw std::runtime_error("golden: unknown op " + op);
}
inline Request from_golden(const golden::GoldenCase& c) {
  Request q;
  q.op = golden_op(c.op);
  q.plan = c.plan();
  q.key = Key(c.seed, c.subseq);
  q.offset = c.offset;
  q.start = c.start;
  q.count = c.count;
  q.rank = c.rank;
  q.world = c.world;
  if (q.op == Op::transform) {
    q.in = golden::from_bits(c.dtype, c.in);
    q.in.resize(q.bytes());
  }
  return q;
}
// Every case of both golden files (stream 1, then stream 2).
inline const std::vector<golden::GoldenCase>& golden_cases() {
  static const std::vector<golden::GoldenCase> cases = [] {
    std::vector<golden::GoldenCase> v = golden::read_golden(golden::golden_path(1));
    const std::vector<golden::GoldenCase> v2 = golden::read_golden(golden::golden_path(2));
    v.insert(v.end(), v2.begin(), v2.end());
    return v;
  }();
  return cases;
}

// ---- the plans under test ------------------------------------------------------------------------
inline bool same_params(const DrawParams& a, const DrawParams& b) {
  bool same = true;
#define XRNG_X(name, kind, def, doc) same = same && a.name == b.name;
  XRNG_PARAMS(XRNG_X)
#undef XRNG_X
  return same;
}

// For every registry row (table order): each sample parameter set of its
// distribution, then each distinct parameter set of the golden cases of that row.
inline std::vector<Plan> plans_under_test() {
  std::vector<Plan> v;
  for (const RowInfo& r : kRows) {
    std::vector<DrawParams> ps = golden::sample_params(r.dist);
    for (const golden::GoldenCase& c : golden_cases()) {
      if (c.dist != r.dist || c.dtype != r.dtype || find_row(c.dist, c.dtype, c.stream) != &r) continue;
      bool seen = false;
      for (const DrawParams& q : ps) seen = seen || same_params(q, c.params);
      if (!seen) ps.push_back(c.params);
    }
    for (const DrawParams& q : ps) v.push_back(make_plan(r.dist, r.dtype, q, r.version));
  }
  return v;
}

// ---- random requests -----------------------------------------------------------------------------
// Random input elements for a transform: arbitrary bit patterns, with NaN
// and infinity patterns made finite (NaN inputs have their own test), and
// some ordinary values among them.
inline void fill_input(Request& q, Rng& r) {
  const int es = dtype_size(q.plan.dtype);
  q.in.assign(q.bytes(), 0);
  for (auto& b : q.in) b = static_cast<unsigned char>(r.next());
  for (uint64_t i = 0; i < q.count; ++i) {
    unsigned char* e = q.in.data() + i * es;
    uint64_t x = 0;
    std::memcpy(&x, e, es);
    switch (q.plan.dtype) {  // clear the top exponent bit of NaN / inf patterns; every third value ordinary
      case DType::f64:
        if (((x >> 52) & 0x7ff) == 0x7ff) x &= ~(uint64_t{1} << 62);
        if (i % 3 == 0) x = math::as_u64(static_cast<double>(static_cast<int64_t>(r.below(2000001)) - 1000000) / 1024);
        break;
      case DType::f32:
        if (((x >> 23) & 0xff) == 0xff) x &= ~(uint64_t{1} << 30);
        if (i % 3 == 0) x = math::as_u32(static_cast<float>(static_cast<int64_t>(r.below(2000001)) - 1000000) / 1024);
        break;
      case DType::f16:
        if (((x >> 10) & 0x1f) == 0x1f) x &= ~(uint64_t{1} << 14);
        break;
      case DType::bf16:
        if (((x >> 7) & 0xff) == 0xff) x &= ~(uint64_t{1} << 14);
        break;
      case DType::u32:
      case DType::u64:
      case DType::i32:
      case DType::i64:
      case DType::u8:
        break;  // integer inputs: any pattern
    }
    std::memcpy(e, &x, es);
  }
}

// A random request of `op` on plan p: counts around the chunk sizes and up
// to max_count, offsets of every lane phase, small and huge, starts inside
// and far into the draw; for permutations, elements within [0, n) and any
// rank / world.
inline Request random_request(Rng& r, Op op, const Plan& p, uint64_t max_count) {
  Request q;
  q.op = op;
  q.plan = p;
  q.key = Key(r.next(), r.below(2) ? r.next() : 0);
  const uint64_t counts[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 1000};
  q.count = r.below(3) == 0 ? 1 + r.below(max_count) : counts[r.below(sizeof counts / sizeof counts[0])];
  switch (r.below(3)) {
    case 0: q.offset = r.below(20); break;
    case 1: q.offset = r.next() & 0xffffffffull; break;
    default: q.offset = r.next() >> 2; break;
  }
  if (p.kind == Kind::permutation) {
    q.offset = r.below(2) ? r.below(100) : r.next() >> 2;
    if (op == Op::perm_shard) {
      q.world = 1 + (r.below(2) ? r.below(16) : r.next() >> r.below(64));
      q.rank = r.below(q.world);
      q.start = r.below(2) ? r.below(50) : r.next() >> 24;
    } else {
      if (q.count > p.n) q.count = p.n;
      q.start = r.below(p.n - q.count + 1);
    }
    return q;
  }
  q.start = r.below(2) ? r.below(70) : r.next() >> 24;
  if (op == Op::transform) fill_input(q, r);
  return q;
}

// The request of `op` on element / transform plan p whose last word is stream
// word 2^64 - 1 (the stream's very end).
inline Request request_at_stream_end(Rng& r, Op op, const Plan& p, uint64_t start, uint64_t count) {
  Request q;
  q.op = op;
  q.plan = p;
  q.key = Key(r.next(), ~uint64_t{0});
  q.start = start;
  q.count = count;
  const uint64_t groups = (start + count + p.group - 1) / p.group;
  q.offset = uint64_t{0} - groups * p.words;
  if (op == Op::transform) fill_input(q, r);
  return q;
}

}  // namespace xrng_gpu_test
