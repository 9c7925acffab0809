// xrng for LibTorch: path choice, allocation and copies. No arithmetic on
// values happens here (STYLE.md #12): every value is written by xrng::fill /
// xrng::dropout / xrng::perm_shard on the host or xrng::cuda::fill on a GPU.
#include "xrng_torch.h"

#include <ATen/Parallel.h>
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <cstring>
#include <functional>
#include <limits>
#include <string>

#if defined(XRNG_TORCH_CUDA)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "../device/xrng_cuda.h"
#endif

namespace xrng::torch_api {
namespace {

// ---- dtype bookkeeping -------------------------------------------------------------------
at::ScalarType scalar_type_of(DType t) {
  switch (t) {
    case DType::f32: return at::kFloat;
    case DType::f64: return at::kDouble;
    case DType::f16: return at::kHalf;
    case DType::bf16: return at::kBFloat16;
    case DType::i32: return at::kInt;
    case DType::i64: return at::kLong;
    case DType::u8: return at::kByte;
    case DType::u32: return at::kUInt32;
    case DType::u64: return at::kUInt64;
  }
  throw Error("unknown dtype");
}

// The dtype the values are drawn into before they land in `out`: out's own
// type when the draw writes it directly (same element size; a u8 mask lands
// in a bool tensor as 0/1 bytes), else the wider draw type (randint i32 for
// int16/int8/uint8 outputs), converted by a copy.
at::ScalarType staging_type(const Plan& plan, at::ScalarType out) {
  if (dtype_size(plan.dtype) == static_cast<int>(c10::elementSize(out))) return out;
  return scalar_type_of(plan.dtype);
}

FillOptions host_options(const RunOptions& run) {
  FillOptions f;
  f.threads = run.threads > 0 ? run.threads : at::get_num_threads();
  return f;
}

// Rejects tensors no path can write: undefined, not strided (sparse, mkldnn),
// or without memory (meta).
void check_defined(const at::Tensor& t, const char* what) {
  if (!t.defined()) throw Error(std::string(what) + ": undefined tensor");
  if (t.layout() != at::kStrided)
    throw Error(std::string(what) + ": only strided tensors can be filled (got layout " + c10::str(t.layout()) + ")");
  if (t.is_meta() || !t.has_storage())
    throw Error(std::string(what) + ": no path for device " + t.device().str() + " (a tensor without memory)");
}

uint64_t numel_of(const at::Tensor& t) { return static_cast<uint64_t>(t.numel()); }

// ---- host buffers and the host-then-transfer path -------------------------------------------
struct HostBuffer {
  at::Tensor t;
  bool pinned = false;
};

// A host tensor of `numel` elements, in memory pinned for `device` when that
// device type has a pinned-memory allocator, else in plain memory.
HostBuffer host_buffer(int64_t numel, at::ScalarType type, c10::DeviceType device) {
  const auto opts = at::TensorOptions().dtype(type);
  if (device != c10::kCPU) {
    try {
      c10::Allocator* a = at::globalContext().getPinnedMemoryAllocator(device);
      if (a != nullptr) {
        const size_t bytes = static_cast<size_t>(numel) * c10::elementSize(type);
        c10::Storage st(c10::Storage::use_byte_size_t(), bytes, a, /*resizable=*/false);
        at::Tensor t = at::empty({0}, opts);
        t.set_(st, 0, {numel}, {1});
        return {t, true};
      }
    } catch (const c10::Error&) {
      // no pinned memory for this device type: plain memory below
    }
  }
  return {at::empty({numel}, opts), false};
}

// Whether `device` supports events on its current stream (what the double
// buffering below needs to know when a buffer may be refilled).
bool events_work(const at::Device& device) {
  try {
    c10::impl::VirtualGuardImpl impl(device.type());
    c10::Event e(device.type());
    e.record(impl.getStream(device));
    e.synchronize();
    return true;
  } catch (const c10::Error&) {
    return false;
  }
}

// Elements per chunk of the transfer: about 8 MiB, a multiple of 4096 so
// chunks start on group and Philox-block boundaries (not needed for the
// values, which do not depend on the split, but it keeps the SIMD path whole).
constexpr uint64_t kChunkBytes = 8u << 20;
uint64_t chunk_elements(at::ScalarType t) {
  const uint64_t e = kChunkBytes / c10::elementSize(t);
  return std::max<uint64_t>(4096, e / 4096 * 4096);
}

using Producer = std::function<void(uint64_t start, uint64_t count, void* host)>;

// Runs produce(start, count, host) over [0, dst.numel()) in chunks and copies
// each chunk into the contiguous 1-D device tensor dst. With pinned memory and
// device events the copies are non-blocking and two buffers alternate: chunk
// k+1 is generated while chunk k is in flight.
void host_transfer(at::Tensor& dst, const Producer& produce) {
  const uint64_t n = numel_of(dst);
  if (n == 0) return;
  const at::ScalarType type = dst.scalar_type();
  const at::Device device = dst.device();
  const uint64_t chunk = std::min(n, chunk_elements(type));
  const int nbuf = n > chunk ? 2 : 1;
  HostBuffer buf[2];
  for (int b = 0; b < nbuf; ++b) buf[b] = host_buffer(static_cast<int64_t>(chunk), type, device.type());
  const bool async = buf[0].pinned && (nbuf == 1 || buf[1].pinned) && events_work(device);
  std::optional<c10::Event> done[2];
  c10::impl::VirtualGuardImpl impl(device.type());
  for (uint64_t k = 0, s = 0; s < n; ++k, s += chunk) {
    const uint64_t c = std::min(chunk, n - s);
    const int b = static_cast<int>(k % 2);
    if (done[b]) done[b]->synchronize();  // the copy that last read buf[b] has finished
    produce(s, c, buf[b].t.data_ptr());
    dst.narrow(0, static_cast<int64_t>(s), static_cast<int64_t>(c))
        .copy_(buf[b].t.narrow(0, 0, static_cast<int64_t>(c)), /*non_blocking=*/async);
    if (async) {
      if (!done[b]) done[b].emplace(device.type());
      done[b]->record(impl.getStream(device));
    }
  }
  // CUDA's caching host allocator keeps pinned blocks alive until their copies
  // finish; other backends get no such promise, so wait before freeing.
  if (async && device.type() != c10::kCUDA)
    for (auto& d : done)
      if (d) d->synchronize();
}

// Lands the values of `produce` (in `stage` type, numel elements) in `out` on
// any device: directly when out is a contiguous host tensor of that type,
// else through a contiguous staging tensor and a copy.
void land(at::Tensor& out, at::ScalarType stage, const Producer& produce, const FillOptions&) {
  const uint64_t n = numel_of(out);
  if (n == 0) return;
  if (out.device().is_cpu()) {
    if (out.is_contiguous() && out.scalar_type() == stage) {
      produce(0, n, out.data_ptr());
      return;
    }
    at::Tensor tmp = at::empty({static_cast<int64_t>(n)}, at::TensorOptions().dtype(stage));
    produce(0, n, tmp.data_ptr());
    out.copy_(tmp.view(out.sizes()));
    return;
  }
  if (out.is_contiguous() && out.scalar_type() == stage) {
    at::Tensor flat = out.view({static_cast<int64_t>(n)});
    host_transfer(flat, produce);
    return;
  }
  at::Tensor dst = at::empty({static_cast<int64_t>(n)}, out.options().dtype(stage));
  host_transfer(dst, produce);
  out.copy_(dst.view(out.sizes()));
}

bool use_cuda_kernels(const at::Tensor& t, const RunOptions& run) {
  return has_cuda_kernels() && t.device().is_cuda() && run.path == Path::automatic;
}

#if defined(XRNG_TORCH_CUDA)
// The CUDA kernels write the draw straight into device memory on the current stream.
void cuda_fill(at::Tensor& out, const Plan& plan, const Key& key, uint64_t offset, at::ScalarType stage) {
  const uint64_t n = numel_of(out);
  if (n == 0) return;
  const c10::cuda::CUDAGuard guard(out.device());
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(out.device().index()).stream();
  if (out.is_contiguous() && out.scalar_type() == stage) {
    xrng::cuda::fill(plan, key, offset, 0, n, out.data_ptr(), stream, xrng::cuda::LaunchConfig{});
    return;
  }
  at::Tensor tmp = at::empty({static_cast<int64_t>(n)}, out.options().dtype(stage));
  xrng::cuda::fill(plan, key, offset, 0, n, tmp.data_ptr(), stream, xrng::cuda::LaunchConfig{});
  out.copy_(tmp.view(out.sizes()));
}
#endif

std::string type_name(at::ScalarType t) { return c10::toString(t); }

void check_randint_fits(const Plan& plan, at::ScalarType t) {
  if (plan.dist != Dist::randint || !at::isIntegralType(t, /*includeBool=*/false)) return;
  int64_t lo, hi;
  switch (t) {
    case at::kByte: lo = 0, hi = 255; break;
    case at::kChar: lo = -128, hi = 127; break;
    case at::kShort: lo = INT16_MIN, hi = INT16_MAX; break;
    case at::kInt: lo = INT32_MIN, hi = INT32_MAX; break;
    default: return;  // int64: every range fits
  }
  const int64_t last = static_cast<int64_t>(static_cast<uint64_t>(plan.randint.low) + (plan.randint.range - 1));
  if (plan.randint.low < lo || last > hi)
    throw Error("randint: range [" + std::to_string(plan.randint.low) + ", " + std::to_string(last + 1) +
                ") does not fit " + type_name(t));
}


at::TensorOptions defaults(at::TensorOptions opt, at::ScalarType dtype) {
  return opt.has_dtype() ? opt : opt.dtype(dtype);
}
at::TensorOptions like_options(const at::Tensor& like, at::TensorOptions opt) {
  at::TensorOptions o = like.options();
  if (opt.has_dtype()) o = o.dtype(opt.dtype());
  if (opt.has_device()) o = o.device(opt.device());
  return o;
}
std::vector<int64_t> checked_size(at::IntArrayRef size) {
  for (int64_t s : size)
    if (s < 0) throw Error("negative dimension " + std::to_string(s) + " in size " + c10::str(size));
  return size.vec();
}

}  // namespace

bool has_cuda_kernels() {
#if defined(XRNG_TORCH_CUDA)
  return true;
#else
  return false;
#endif
}

// ---- Generator state -----------------------------------------------------------------------
namespace {
void put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
}  // namespace

std::array<uint8_t, Generator::kStateBytes> Generator::state_bytes() const {
  std::array<uint8_t, kStateBytes> b{};
  std::memcpy(b.data(), "XRNG", 4);
  const uint32_t v = static_cast<uint32_t>(kStreamVersion);
  for (int i = 0; i < 4; ++i) b[4 + i] = static_cast<uint8_t>(v >> (8 * i));
  put64(b.data() + 8, seed());
  put64(b.data() + 16, subseq());
  put64(b.data() + 24, offset());
  return b;
}

at::Tensor Generator::get_state() const {
  const auto b = state_bytes();
  at::Tensor t = at::empty({static_cast<int64_t>(kStateBytes)}, at::TensorOptions().dtype(at::kByte));
  std::memcpy(t.data_ptr(), b.data(), kStateBytes);
  return t;
}

void Generator::set_state_bytes(const uint8_t* b, size_t n) {
  if (n != kStateBytes || std::memcmp(b, "XRNG", 4) != 0)
    throw Error("Generator.set_state: not an xrng generator state (expected " + std::to_string(kStateBytes) +
                " bytes starting with 'XRNG', got " + std::to_string(n) + " bytes)");
  const uint32_t v = static_cast<uint32_t>(b[4]) | (static_cast<uint32_t>(b[5]) << 8) |
                     (static_cast<uint32_t>(b[6]) << 16) | (static_cast<uint32_t>(b[7]) << 24);
  if (v != static_cast<uint32_t>(kStreamVersion))
    throw Error("Generator.set_state: the state is for stream version " + std::to_string(v) + ", this is version " +
                std::to_string(kStreamVersion));
  g_ = xrng::Generator(Key(get64(b + 8), get64(b + 16)), get64(b + 24));
}

void Generator::set_state(const at::Tensor& state) {
  check_defined(state, "Generator.set_state");
  if (state.scalar_type() != at::kByte || state.dim() != 1)
    throw Error("Generator.set_state: expected a 1-D uint8 tensor");
  const at::Tensor c = state.to(at::kCPU).contiguous();
  set_state_bytes(c.data_ptr<uint8_t>(), static_cast<size_t>(c.numel()));
}

// ---- generic entry points ------------------------------------------------------------------
DType draw_dtype(Dist dist, at::ScalarType t) {
  // The xrng dtype stored exactly as the tensor's, when the distribution has that row.
  std::optional<DType> exact;
  switch (t) {
    case at::kFloat: exact = DType::f32; break;
    case at::kDouble: exact = DType::f64; break;
    case at::kHalf: exact = DType::f16; break;
    case at::kBFloat16: exact = DType::bf16; break;
    case at::kInt: exact = DType::i32; break;
    case at::kLong: exact = DType::i64; break;
    case at::kUInt32: exact = DType::u32; break;
    case at::kUInt64: exact = DType::u64; break;
    case at::kByte:
    case at::kBool: exact = DType::u8; break;
    default: break;
  }
  if (exact && dtype_supported(dist, *exact)) return *exact;
  // Narrow integer tensors draw i32 and cast (randint, geometric into int16/int8/uint8).
  const bool narrow_int = t == at::kShort || t == at::kChar || t == at::kByte;
  if (narrow_int && dtype_supported(dist, DType::i32) && dist != Dist::perm) return DType::i32;
  throw Error(std::string("dtype ") + type_name(t) + " is not available for distribution " + dist_name(dist));
}

at::Tensor& fill_(at::Tensor& out, const Plan& plan, Generator& gen, const RunOptions& run) {
  check_defined(out, "fill_");
  if (plan.dist == Dist::dropout) throw Error("fill_: dropout needs an input tensor: use dropout_out");
  const DType want = draw_dtype(plan.dist, out.scalar_type());
  if (want != plan.dtype)
    throw Error(std::string("fill_: a ") + dist_name(plan.dist) + "/" + dtype_name(plan.dtype) +
                " draw cannot fill a " + type_name(out.scalar_type()) + " tensor");
  check_randint_fits(plan, out.scalar_type());
  const uint64_t n = numel_of(out);
  if (plan.dist == Dist::perm && n != plan.n)
    throw Error("fill_: a permutation of " + std::to_string(plan.n) + " fills a tensor of that many elements, not " +
                std::to_string(n));
  // Advance a copy first: a draw that cannot be made leaves gen untouched.
  xrng::Generator next = gen.core();
  next.skip(plan, n);
  const Key key = gen.key();
  const uint64_t offset = gen.offset();
  const at::ScalarType stage = staging_type(plan, out.scalar_type());
#if defined(XRNG_TORCH_CUDA)
  if (use_cuda_kernels(out, run)) {
    cuda_fill(out, plan, key, offset, stage);
    gen.core() = next;
    return out;
  }
#endif
  const FillOptions fo = host_options(run);
  land(out, stage, [&](uint64_t s, uint64_t c, void* host) { xrng::fill(plan, key, offset, s, c, host, fo); }, fo);
  gen.core() = next;
  return out;
}

at::Tensor& dropout_out(at::Tensor& out, const at::Tensor& in, double p, Generator& gen, const RunOptions& run) {
  check_defined(out, "dropout");
  check_defined(in, "dropout");
  if (!out.sizes().equals(in.sizes()) || out.scalar_type() != in.scalar_type() || out.device() != in.device())
    throw Error("dropout: output and input differ in shape, dtype or device");
  const DType t = draw_dtype(Dist::dropout, in.scalar_type());
  DrawParams q;
  q.p = p;
  const Plan plan = make_plan(Dist::dropout, t, q);
  const uint64_t n = numel_of(in);
  xrng::Generator next = gen.core();
  next.skip(plan, n);
  const Key key = gen.key();
  const uint64_t offset = gen.offset();
#if defined(XRNG_TORCH_CUDA)
  if (use_cuda_kernels(out, run)) {
    if (n != 0) {
      const c10::cuda::CUDAGuard guard(out.device());
      const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(out.device().index()).stream();
      const at::Tensor x = in.contiguous();
      at::Tensor y = out.is_contiguous() ? out : at::empty_like(x);
      xrng::cuda::dropout(plan, key, offset, 0, n, x.data_ptr(), y.data_ptr(), stream, xrng::cuda::LaunchConfig{});
      if (!y.is_same(out)) out.copy_(y);
    }
    gen.core() = next;
    return out;
  }
#endif
  const FillOptions fo = host_options(run);
  // Host path: a device input comes to the host, the result goes back by the
  // transfer path.
  const at::Tensor x = in.to(at::kCPU).contiguous();
  const size_t es = c10::elementSize(x.scalar_type());
  const char* xp = static_cast<const char*>(x.data_ptr());
  land(out, out.scalar_type(),
       [&](uint64_t s, uint64_t c, void* host) { xrng::dropout(plan, key, offset, s, c, xp + s * es, host, fo); },
       fo);
  gen.core() = next;
  return out;
}

at::Tensor& perm_shard_out(at::Tensor& out, uint64_t n, const Key& key, uint64_t offset, uint64_t rank,
                           uint64_t world, uint64_t start, const RunOptions& run) {
  check_defined(out, "perm_shard");
  DrawParams q;
  q.n = n;
  const Plan plan = make_plan(Dist::perm, draw_dtype(Dist::perm, out.scalar_type()), q);
#if defined(XRNG_TORCH_CUDA)
  if (use_cuda_kernels(out, run)) {
    const uint64_t n_out = numel_of(out);
    if (n_out == 0) return out;
    const c10::cuda::CUDAGuard guard(out.device());
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(out.device().index()).stream();
    at::Tensor y = out.is_contiguous() ? out : at::empty({static_cast<int64_t>(n_out)}, out.options());
    xrng::cuda::perm_shard(plan, key, offset, rank, world, start, n_out, y.data_ptr(), stream,
                           xrng::cuda::LaunchConfig{});
    if (!y.is_same(out)) out.copy_(y.view(out.sizes()));
    return out;
  }
#endif
  const FillOptions fo = host_options(run);
  land(out, out.scalar_type(),
       [&](uint64_t s, uint64_t c, void* host) {
         xrng::perm_shard(plan, key, offset, rank, world, start + s, c, host, fo);
       },
       fo);
  return out;
}

// ---- factories ----------------------------------------------------------------------------
at::Tensor rand(at::IntArrayRef size, Generator& gen, at::TensorOptions opt, double low, double high,
                const RunOptions& run) {
  at::Tensor t = at::empty(checked_size(size), defaults(opt, at::kFloat));
  return uniform_(t, gen, low, high, run);
}
at::Tensor randn(at::IntArrayRef size, Generator& gen, at::TensorOptions opt, double mean, double std,
                 const RunOptions& run) {
  at::Tensor t = at::empty(checked_size(size), defaults(opt, at::kFloat));
  return normal_(t, gen, mean, std, run);
}
at::Tensor randint(int64_t low, int64_t high, at::IntArrayRef size, Generator& gen, at::TensorOptions opt,
                   const RunOptions& run) {
  at::Tensor t = at::empty(checked_size(size), defaults(opt, at::kLong));
  return randint_(t, low, high, gen, run);
}
at::Tensor bernoulli(at::IntArrayRef size, double p, Generator& gen, at::TensorOptions opt, const RunOptions& run) {
  at::Tensor t = at::empty(checked_size(size), defaults(opt, at::kBool));
  return bernoulli_(t, p, gen, run);
}
at::Tensor randperm(int64_t n, Generator& gen, at::TensorOptions opt, const RunOptions& run) {
  if (n < 1) throw Error("randperm: n must be >= 1 (got " + std::to_string(n) + ")");
  at::Tensor t = at::empty({n}, defaults(opt, at::kLong));
  DrawParams q;
  q.n = static_cast<uint64_t>(n);
  return fill_(t, make_plan(Dist::perm, draw_dtype(Dist::perm, t.scalar_type()), q), gen, run);
}
at::Tensor dropout(const at::Tensor& in, double p, Generator& gen, const RunOptions& run) {
  check_defined(in, "dropout");
  at::Tensor out = at::empty(in.sizes(), in.options());
  return dropout_out(out, in, p, gen, run);
}

at::Tensor rand_like(const at::Tensor& like, Generator& gen, at::TensorOptions opt, double low, double high,
                     const RunOptions& run) {
  check_defined(like, "rand_like");
  return rand(like.sizes(), gen, like_options(like, opt), low, high, run);
}
at::Tensor randn_like(const at::Tensor& like, Generator& gen, at::TensorOptions opt, double mean, double std,
                      const RunOptions& run) {
  check_defined(like, "randn_like");
  return randn(like.sizes(), gen, like_options(like, opt), mean, std, run);
}
at::Tensor randint_like(const at::Tensor& like, int64_t low, int64_t high, Generator& gen, at::TensorOptions opt,
                        const RunOptions& run) {
  check_defined(like, "randint_like");
  return randint(low, high, like.sizes(), gen, like_options(like, opt), run);
}
at::Tensor bernoulli_like(const at::Tensor& like, double p, Generator& gen, at::TensorOptions opt,
                          const RunOptions& run) {
  check_defined(like, "bernoulli_like");
  return bernoulli(like.sizes(), p, gen, like_options(like, opt), run);
}

// ---- in-place fills ---------------------------------------------------------------------------
at::Tensor& uniform_(at::Tensor& t, Generator& gen, double low, double high, const RunOptions& run) {
  check_defined(t, "uniform_");
  return fill_(t, make_plan(Dist::uniform, draw_dtype(Dist::uniform, t.scalar_type()), DrawParams::range(low, high)), gen,
               run);
}
at::Tensor& normal_(at::Tensor& t, Generator& gen, double mean, double std, const RunOptions& run) {
  check_defined(t, "normal_");
  return fill_(t, make_plan(Dist::normal, draw_dtype(Dist::normal, t.scalar_type()), DrawParams::moments(mean, std)), gen,
               run);
}
at::Tensor& randint_(at::Tensor& t, int64_t low, int64_t high, Generator& gen, const RunOptions& run) {
  check_defined(t, "randint_");
  return fill_(t, make_plan(Dist::randint, draw_dtype(Dist::randint, t.scalar_type()), DrawParams::int_range(low, high)), gen,
               run);
}
at::Tensor& bernoulli_(at::Tensor& t, double p, Generator& gen, const RunOptions& run) {
  check_defined(t, "bernoulli_");
  return fill_(t, make_plan(Dist::bernoulli, draw_dtype(Dist::bernoulli, t.scalar_type()), DrawParams::probability(p)), gen, run);
}
at::Tensor& dropout_(at::Tensor& t, double p, Generator& gen, const RunOptions& run) {
  return dropout_out(t, t, p, gen, run);
}

}  // namespace xrng::torch_api
