// xrng host API: fill caller-supplied buffers on the CPU.
//
// Every function computes elements [start, start + count) of a draw at word
// `offset` of the stream named by `key`; out[0] receives element `start`.
// Results do not depend on the backend (scalar or SIMD), the number of
// threads, or how a draw is split into calls. Errors (bad parameters, counter
// overflow, null buffers) throw xrng::Error before anything is written.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "../rng/block.h"
#include "../rng/keys.h"
#include "../rng/binomial.h"
#include "../rng/gamma.h"
#include "../rng/poisson.h"
#include "../rng/multinomial.h"
#include "../rng/plan.h"
#include "../rng/detail/rows.h"

namespace xrng {

enum class Backend { scalar, simd, automatic };

// The most host threads a call may ask for. FillOptions::threads, the CLI's
// --threads and Python's threads= all take 0 (all hardware threads) to
// kMaxThreads; anything else is an xrng::Error (check_threads).
inline constexpr int kMaxThreads = 1024;
// Throws xrng::Error unless 0 <= threads <= kMaxThreads; `what` names the
// argument in the message ("threads", "--threads").
inline void check_threads(long long threads, const char* what = "threads") {
  if (threads < 0 || threads > kMaxThreads)
    throw Error(std::string(what) + " must be 0 (all) to " + std::to_string(kMaxThreads) + " (got " +
                std::to_string(threads) + ")");
}

struct FillOptions {
  Backend backend = Backend::automatic;  // scalar: the reference; simd: best available ISA (error if none)
  int threads = 1;                       // 0: all hardware threads; at most kMaxThreads
};

// The SIMD instruction set the host dispatcher uses: on x86-64 "avx512" or
// "avx2" (AVX2 + FMA + F16C), on AArch64 "neon" (Advanced SIMD, always
// present), or "none" (the scalar path: a CPU without them, or a build for an
// architecture without a vector backend). Every ISA gives the same values.
const char* simd_isa();
// The ISAs set_simd_isa accepts on this machine with this build, best last
// ("none" first; e.g. {"none", "avx2", "avx512"} or {"none", "neon"}).
std::vector<std::string> simd_isas();
// Forces the dispatcher below the detected ISA (e.g. "avx2", "none"); for tests and
// benchmarks. Returns false if the name is unknown or not supported here.
bool set_simd_isa(const std::string& name);

// ---- generic entry points (any distribution / dtype of a Plan) ---------------------
// out has room for `count` elements of plan.dtype.
void fill(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* out,
          const FillOptions& opt = {});
// A transform draw (Kind::transform, e.g. dropout): out[i] = f(words of
// element start+i, in[i]). in == out is allowed.
void transform(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* in,
               void* out, const FillOptions& opt = {});
// Dropout (plan from make_plan(Dist::dropout, dtype, {.p = p})): out[i] is 0
// where element start+i is dropped, else in[i] / (1 - p). in == out is allowed.
void dropout(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, const void* in,
             void* out, const FillOptions& opt = {});
// Shard `rank` of `world` of a permutation plan: elements j in [start, start+count)
// of the shard, i.e. perm((rank + j * world) mod n).
void perm_shard(const Plan& plan, const Key& key, uint64_t offset, uint64_t rank, uint64_t world, uint64_t start,
                uint64_t count, void* out, const FillOptions& opt = {});
// Inverse permutation: out[i] = position of value (start + i).
void perm_inverse(const Plan& plan, const Key& key, uint64_t offset, uint64_t start, uint64_t count, void* out,
                  const FillOptions& opt = {});

// ---- blocks of a global tensor (rng/block.h; SPEC.md, "Blocks of a global tensor") ----------
// The elements of a draw over the global tensor block.shape that lie in the
// block: out[j] (block elements row-major over block.size) is the element of
// the unsharded draw of prod(block.shape) elements at the same global
// position, bit for bit, whatever the backend and threads; so the blocks of
// any sharding put together are the unsharded draw. A block edge may split a
// group (normal's pairs, f64 normal's words): the element is still that of
// the full draw. Permutation plans need prod(block.shape) == plan.n.
// Throws xrng::Error (bad block, counters of the global draw past 2^64, the
// plan's kind) before anything is written. out has room for the block's
// elements (prod(block.size)).
void fill_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, void* out,
                const FillOptions& opt = {});
// Block elements [start, start + count) only (out[0] receives block element
// start): a block drawn in parts, e.g. by a caller with bounded memory.
void fill_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                uint64_t count, void* out, const FillOptions& opt = {});
// A transform draw (dropout) of a block: out[j] = f(words of the block
// element's global index, in[j]); the mask is the global tensor's. in == out
// is allowed.
void transform_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, const void* in,
                     void* out, const FillOptions& opt = {});
void transform_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, uint64_t start,
                     uint64_t count, const void* in, void* out, const FillOptions& opt = {});
// transform_block for a plan made with Dist::dropout only.
void dropout_block(const Plan& plan, const Key& key, uint64_t offset, const TensorBlock& block, const void* in,
                   void* out, const FillOptions& opt = {});

// ---- typed conveniences ----------------------------------------------------------
// Each builds its plan with make_plan(..., stream): `stream` is the stream
// version (SPEC.md section 7), 1 .. kStreamVersion, the newest by default;
// stream = 1 reproduces the values of every release before stream 2. Only
// the rows that stream 2 redefines (normal, exponential, log_normal, cauchy
// in f32/f16/bf16) differ between versions; the argument is accepted (and
// checked) everywhere, so that a caller can pin a version once for all draws.
void bits(const Key& key, uint64_t offset, uint32_t* out, size_t n,
          const FillOptions& opt = {}, int stream = kStreamVersion);
void bits(const Key& key, uint64_t offset, uint64_t* out, size_t n,
          const FillOptions& opt = {}, int stream = kStreamVersion);
void uniform(const Key& key, uint64_t offset, float* out, size_t n, double low = 0.0, double high = 1.0,
             const FillOptions& opt = {}, int stream = kStreamVersion);
void uniform(const Key& key, uint64_t offset, double* out, size_t n, double low = 0.0, double high = 1.0,
             const FillOptions& opt = {}, int stream = kStreamVersion);
void normal(const Key& key, uint64_t offset, float* out, size_t n, double mean = 0.0, double std = 1.0,
            const FillOptions& opt = {}, int stream = kStreamVersion);
void normal(const Key& key, uint64_t offset, double* out, size_t n, double mean = 0.0, double std = 1.0,
            const FillOptions& opt = {}, int stream = kStreamVersion);
void bernoulli(const Key& key, uint64_t offset, uint8_t* out, size_t n, double p,
               const FillOptions& opt = {}, int stream = kStreamVersion);
void randint(const Key& key, uint64_t offset, int32_t* out, size_t n, int64_t low, int64_t high,
             const FillOptions& opt = {}, int stream = kStreamVersion);
void randint(const Key& key, uint64_t offset, int64_t* out, size_t n, int64_t low, int64_t high,
             const FillOptions& opt = {}, int stream = kStreamVersion);
void randperm(const Key& key, uint64_t offset, int64_t* out, uint64_t n,
              const FillOptions& opt = {}, int stream = kStreamVersion);
std::vector<int64_t> randperm(const Key& key, uint64_t offset, uint64_t n,
                              const FillOptions& opt = {}, int stream = kStreamVersion);

// Random access to single elements of a permutation.
uint64_t perm_element(const Key& key, uint64_t offset, uint64_t n, uint64_t i);
uint64_t perm_position(const Key& key, uint64_t offset, uint64_t n, uint64_t value);

// ---- categorical sampling (issue 20; SPEC.md section 10) ----------------------------------
// multinomial(weights[rows, k], num_samples, replacement) -> out[rows, num_samples]
// (row-major int64 category indices), torch.multinomial's draw. `weights`
// is row-major binary64 (convert other dtypes exactly first: every f32, f16
// and bf16 value is a binary64 value). With replacement sample (r, j) reads
// the 2 words offset + 2 (r num_samples + j); without replacement category
// (r, i) reads the 2 words offset + 2 (r k + i) (an exponential race, exact
// keys). Throws xrng::Error before writing anything: k = 0, num_samples = 0,
// num_samples > k without replacement, a row with a NaN, inf or negative
// weight, a row summing to 0 or to inf, counters beyond 2^64.
void multinomial(const double* weights, uint64_t rows, uint64_t k, uint64_t num_samples, bool replacement,
                 const Key& key, uint64_t offset, int64_t* out, const FillOptions& opt = {});
// multinomial_words(rows, k, num_samples, replacement) (the words it consumes)
// and check_multinomial_shape (the checks without the weights) are in
// rng/multinomial.h.

// ---- the gamma family (issue 20; SPEC.md section 11) -------------------------------------
// gamma(alpha[n]) -> out[n]: standard gamma variates (scale 1), torch._standard_gamma's
// draw; element i reads the 64 words offset + 64 i (Marsaglia and Tsang's
// method, 15 attempts of 4 words, words 60-61 for the boost of alpha < 1),
// computed in binary64 and rounded to `dt` (f64, f32, f16 or bf16), at
// least the dtype's smallest normal. dirichlet(alpha[rows, k]) -> out[rows, k]:
// each row's gamma variates (the same words) over their left-to-right
// binary64 sum, torch._sample_dirichlet's draw (and Beta's). `alpha` is
// binary64 (every f32, f16 and bf16 value converts exactly). Throws
// xrng::Error before writing anything: an alpha that is not finite and > 0,
// another dtype, counters beyond 2^64 (gamma_words(n) = 64 n, rng/gamma.h).
void gamma(const double* alpha, uint64_t n, const Key& key, uint64_t offset, DType dt, void* out,
           const FillOptions& opt = {});
void dirichlet(const double* alpha, uint64_t rows, uint64_t k, const Key& key, uint64_t offset, DType dt, void* out,
               const FillOptions& opt = {});
// poisson(rate[n]) -> out[n]: Poisson counts as values of `dt` (f64, f32,
// f16 or bf16), torch.poisson's draw (SPEC.md section 12): element i reads
// the 64 words offset + 64 i (inversion below rate 10, PTRS above). `rate`
// is binary64; every rate must be in [0, 2^32] (xrng::Error before writing
// anything, as for another dtype or counters beyond 2^64).
void poisson(const double* rate, uint64_t n, const Key& key, uint64_t offset, DType dt, void* out,
             const FillOptions& opt = {});
// binomial(count[n], prob[n]) -> out[n]: binomial counts as values of `dt`,
// torch.binomial's draw (SPEC.md section 13): element i reads the 64 words
// offset + 64 i (inversion below n min(p, 1 - p) = 10, BTRS above). Every
// count must be an integer in [0, 2^32] and every prob in [0, 1]
// (xrng::Error before writing anything).
void binomial(const double* count, const double* prob, uint64_t n, const Key& key, uint64_t offset, DType dt,
              void* out, const FillOptions& opt = {});

// ---- a stateful generator ------------------------------------------------------------
// Remembers (key, offset) and the stream version it draws, nothing else; each
// draw starts at the current offset and advances it by the words the draw
// consumes (plan_words), so a sequence of draws equals one draw at explicit
// offsets. The stream version (1 .. kStreamVersion, the newest by default) is
// fixed at construction and kept by split/fold_in and by the saved state
// (save_state), so a generator restored from a v1 state keeps drawing v1.
//
// Thread safety: one Generator may be shared by threads. Its state is
// guarded by a mutex (as torch.Generator's is), and every draw reserves its
// word range atomically (reserve: check, take the current offset, advance
// past the draw's words, in one step) before writing, so concurrent draws
// get disjoint ranges and the final offset is the sum of the words drawn:
// they give the same multiset of values as the same draws made one after
// another, and only which thread gets which range is up to the scheduler.
// skip, set_offset, split, fold_in, save_state, copies and assignment
// (load_state into a shared generator) are atomic too.
//
// This is xrng's only generator: the LibTorch API uses it as is
// (xrng::torch_api::Generator is this class; bindings/xrng_torch.h adds its
// 32-byte state format as free functions) and Python's xrng.Generator is a
// binding of it. Derived generators: split(i) and fold_in(data), the same
// names as Key's, in C++, LibTorch and Python.
class Generator {
 public:
  // Throws xrng::Error if `stream` is not a stream version (1 .. kStreamVersion).
  explicit Generator(uint64_t seed = 0, uint64_t subseq = 0, uint64_t offset = 0, int stream = kStreamVersion)
      : key_(seed, subseq), offset_(offset), stream_(checked(stream)) {}
  Generator(const Key& key, uint64_t offset) : key_(key), offset_(offset) {}
  // Copies take a consistent snapshot of `o` (under its lock).
  Generator(const Generator& o) : Generator(o.snapshot()) {}
  Generator& operator=(const Generator& o) {
    if (this != &o) {
      const State s = o.snapshot();
      std::lock_guard<std::mutex> lock(mu_);
      key_ = s.key;
      offset_ = s.offset;
      stream_ = s.stream;
    }
    return *this;
  }
  // A copy that draws stream version `stream` (same key and offset), e.g.
  // Generator(key, offset).with_stream(1). Throws xrng::Error like the constructor.
  Generator with_stream(int stream) const {
    State s = snapshot();
    s.stream = checked(stream);
    return Generator(s);
  }

  Key key() const {
    std::lock_guard<std::mutex> lock(mu_);
    return key_;
  }
  uint64_t offset() const {
    std::lock_guard<std::mutex> lock(mu_);
    return offset_;
  }
  void set_offset(uint64_t w) {
    std::lock_guard<std::mutex> lock(mu_);
    offset_ = w;
  }
  // The stream version this generator draws.
  int stream() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stream_;
  }

  // The plan of a draw in this generator's stream: make_plan(d, t, q, stream()).
  Plan plan(Dist d, DType t, const DrawParams& q = {}) const { return make_plan(d, t, q, stream()); }

  // A word range reserved by reserve(): the draw it was made for uses `key`
  // from word `offset`, and the generator has moved past its `words` words.
  struct Range {
    Key key;
    uint64_t offset = 0;
    uint64_t words = 0;
  };
  // Reserves the words of `count` elements of `plan` (for a permutation, its
  // key words whatever count): checks, in one step under the lock, that the
  // plan is of this generator's stream and that the draw fits before word
  // 2^64 (xrng::Error otherwise, the generator unchanged), then returns
  // where the draw starts and advances the offset past it. Concurrent
  // reservations get disjoint ranges. draw() is reserve() and a fill.
  Range reserve(const Plan& plan, uint64_t count, const char* what = "Generator.draw");
  // Reserves `words` raw stream words the same way (e.g. a dropout whose
  // mask the caller draws statelessly at the range's offset).
  Range reserve_words(uint64_t words);
  // Gives a reservation back when its draw failed before writing anything:
  // the offset returns to r.offset if nothing has moved the generator since
  // (else the range stays consumed, as if drawn). Returns whether it did.
  bool release(const Range& r);

  // Draw `count` elements of `plan` into out and advance. The plan must be of
  // this generator's stream (plan.stream == stream(), e.g. from plan()):
  // xrng::Error otherwise, so that a v1 generator never draws v2 values.
  void draw(const Plan& plan, uint64_t count, void* out, const FillOptions& opt = {});
  // Advance as if `count` elements of `plan` had been drawn.
  void skip(const Plan& plan, uint64_t count);
  // Draw the block `block` of a global tensor (fill_block) and advance by the
  // words of the WHOLE global tensor (skip(plan, prod(block.shape))), not
  // the block's: every shard of a sharded draw, drawing its own block from
  // the same generator state, ends at the same offset, so later draws stay
  // aligned across ranks and equal those of the unsharded program.
  void draw_block(const Plan& plan, const TensorBlock& block, void* out, const FillOptions& opt = {});

  // multinomial (above) at this generator's offset, advancing it by
  // multinomial_words(...); a refused draw leaves the generator unchanged.
  void multinomial(const double* weights, uint64_t rows, uint64_t k, uint64_t num_samples, bool replacement,
                   int64_t* out, const FillOptions& opt = {});
  // gamma (above) at this generator's offset, advancing it by gamma_words(n).
  void gamma(const double* alpha, uint64_t n, DType dt, void* out, const FillOptions& opt = {});
  void normal(float* out, size_t n, double mean = 0.0, double std = 1.0, const FillOptions& opt = {});
  void uniform(float* out, size_t n, double low = 0.0, double high = 1.0, const FillOptions& opt = {});

  // A generator on a derived key, starting at offset 0 (see Key::fold_in/split).
  // Only the key is derived: the parent's offset does not enter, and the
  // parent is unchanged.
  // The stream version is inherited.
  Generator fold_in(uint64_t data) const {
    const State s = snapshot();
    return Generator(s.key.fold_in(data), 0).with_stream(s.stream);
  }
  Generator split(uint64_t i) const {
    const State s = snapshot();
    return Generator(s.key.split(i), 0).with_stream(s.stream);
  }

  // ---- saved state ----
  // kStateBytes bytes, little endian (SPEC.md section 7):
  //   "XRNG" | stream version (u32) | seed (u64) | subseq (u64) | offset (u64).
  // The layout of every release: a v1 generator's state is byte for byte the
  // state earlier releases wrote (and they restore it), a v2 generator's
  // differs only in the version field (earlier releases refuse it, naming
  // the version). load_state restores the version recorded, so a v1 state
  // keeps drawing v1.
  static constexpr size_t kStateBytes = 32;
  std::array<uint8_t, kStateBytes> save_state() const;
  // Throws xrng::Error (one line) if `bytes` is not a state: wrong size, no
  // "XRNG", or a stream version this library does not produce.
  static Generator load_state(const void* bytes, size_t n);

  // Equal generators produce the same values from here on.
  bool operator==(const Generator& o) const {
    const State a = snapshot(), b = o.snapshot();
    return a.key == b.key && a.offset == b.offset && a.stream == b.stream;
  }
  bool operator!=(const Generator& o) const { return !(*this == o); }

 private:
  struct State {
    Key key;
    uint64_t offset;
    int stream;
  };
  explicit Generator(const State& s) : key_(s.key), offset_(s.offset), stream_(s.stream) {}
  State snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return State{key_, offset_, stream_};
  }
  static int checked(int stream) {
    check_stream_version(stream, "Generator");
    return stream;
  }
  mutable std::mutex mu_;  // guards the three fields below
  Key key_;
  uint64_t offset_ = 0;
  int stream_ = kStreamVersion;
};

// ---- internal: per-ISA kernels (host/simd_*.cpp) ----------------------------------------
namespace detail {
// Fills elements [start, start+count) with the ISA's vector code; returns false
// when the plan is not vectorised there (the caller then runs the scalar path).
// Each is defined only where host/CMakeLists.txt compiles its ISA (x86-64:
// avx2, avx512; AArch64: neon); simd_backends() lists those of this build.
bool fill_avx2(const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out);
bool fill_avx512(const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out);
bool fill_neon(const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out);
bool perm_avx2(const PermKey& k, uint64_t start, uint64_t count, DType t, void* out);
bool perm_avx512(const PermKey& k, uint64_t start, uint64_t count, DType t, void* out);
bool perm_neon(const PermKey& k, uint64_t start, uint64_t count, DType t, void* out);
enum class Probe : int;      // host/simd/probe.h
enum class ParamDraw : int;  // host/simd/params_api.h
// A vector backend compiled into this library: its name (simd_isa()), its
// entry points (probe: the tests' access to its per-word transforms,
// host/simd/probe.h), and whether this CPU can run it.
struct SimdBackend {
  const char* name;
  bool (*fill)(const Plan&, const Stream&, uint64_t, uint64_t, uint64_t, void*);
  bool (*perm)(const PermKey&, uint64_t, uint64_t, DType, void*);
  bool (*probe)(Probe, const Plan&, const uint32_t*, size_t, void*);
  bool (*cpu_has)();
  bool (*params)(ParamDraw, const double*, const double*, uint64_t, const Stream&, uint64_t, double*, uint8_t*);
};
// The vector backends of this build, each requiring the CPU features of the
// ones before it (AVX-512 after AVX2); empty where the architecture has none.
const std::vector<SimdBackend>& simd_backends();
// Elements [0, n) of a tensor-parameter draw by the vector form of backend b's
// ISA (host/simd/params_api.h): false when b is scalar or the ISA has none.
bool simd_params(Backend b, ParamDraw which, const double* a, const double* p, uint64_t n, const Stream& s,
                 uint64_t word0, double* y, uint8_t* done);
// The scalar reference for one contiguous range (no threads).
void fill_scalar(const Plan& plan, const Stream& s, uint64_t offset, uint64_t start, uint64_t count, void* out);
}  // namespace detail

}  // namespace xrng
