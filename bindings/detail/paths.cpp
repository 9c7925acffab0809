// The device paths (see paths.h): where a job's values are computed and how
// they reach the tensor. No arithmetic on values happens here (STYLE.md #12):
// every value is written by xrng::fill / xrng::transform / xrng::perm_shard on
// the host or by their xrng::cuda counterparts on a GPU.
#include "paths.h"

#include <ATen/Parallel.h>
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#if defined(XRNG_TORCH_CUDA)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "../../device/direct.h"
#endif

namespace xrng::torch_api {

bool has_cuda_kernels() {
#if defined(XRNG_TORCH_CUDA)
  return true;
#else
  return false;
#endif
}

namespace detail {

void check_strided(const at::Tensor& t, const char* what) {
  if (!t.defined()) throw Error(std::string(what) + ": undefined tensor");
  if (t.layout() != at::kStrided)
    throw Error(std::string(what) + ": only strided tensors can be filled (got layout " + c10::str(t.layout()) + ")");
}

void check_writable(const at::Tensor& t, const char* what) {
  check_strided(t, what);
  if (t.is_meta() || !t.has_storage())
    throw Error(std::string(what) + ": no path for device " + t.device().str() + " (a tensor without memory)");
}

namespace {

// produce(start, count, dst): elements [start, start + count) of the job into
// the contiguous buffer dst (dst[0] is element start), in the memory of the
// backend that computes them.
using Producer = std::function<void(uint64_t start, uint64_t count, void* dst)>;

// ---- producers: one per backend, each the backend's call for every Job::Op ------------------
// Runs call(b, e, fo) over a split of [0, count) on the host. With no thread
// count given (threads <= 0), the parts run on torch's intra-op pool
// (at::parallel_for: threads that persist between calls, where xrng's own
// FillOptions::threads starts threads per call), each part one
// single-threaded call; an explicit count is passed to the backend as is.
// Values never depend on the split. Parts are multiples of 1024 elements, so
// they start on group and Philox-block boundaries (the SIMD path stays whole).
constexpr uint64_t kMinPart = 1u << 15;  // the fewest elements of a part of a split
template <class Call>
void on_host_threads(uint64_t count, const RunOptions& opts, Call&& call) {
  FillOptions fo;
  constexpr uint64_t kAlign = 1024;
  // (a small count is one part: torch's pool is not asked)
  const int pool = opts.threads > 0 || count < 2 * kMinPart ? 1 : at::get_num_threads();
  if (opts.threads > 0 || pool <= 1 || count < 2 * kMinPart || at::in_parallel_region()) {
    fo.threads = opts.threads > 0 ? opts.threads : 1;
    call(uint64_t{0}, count, fo);
    return;
  }
  fo.threads = 1;
  const uint64_t parts = std::min<uint64_t>(static_cast<uint64_t>(pool), count / kMinPart);
  const uint64_t per = ((count + parts - 1) / parts + kAlign - 1) / kAlign * kAlign;
  at::parallel_for(0, static_cast<int64_t>(parts), 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const uint64_t b = static_cast<uint64_t>(p) * per;
      if (b < count) call(b, std::min(count, b + per), fo);
    }
  });
}

Producer host_producer(const Job& job, const RunOptions& opts) {
  switch (job.op) {
    case Job::Op::fill:
      return [&job, opts](uint64_t s, uint64_t c, void* dst) {
        const size_t es = static_cast<size_t>(dtype_size(job.plan.dtype));
        on_host_threads(c, opts, [&](uint64_t b, uint64_t e, const FillOptions& fo) {
          xrng::fill(job.plan, job.key, job.offset, s + b, e - b, static_cast<char*>(dst) + b * es, fo);
        });
      };
    case Job::Op::transform: {
      // The input comes to the host once, in row-major order; the lambda keeps it alive.
      const at::Tensor x = job.input.to(at::kCPU).contiguous();
      return [&job, opts, x](uint64_t s, uint64_t c, void* dst) {
        const size_t es = x.element_size();
        const char* in = static_cast<const char*>(x.data_ptr()) + s * es;
        on_host_threads(c, opts, [&](uint64_t b, uint64_t e, const FillOptions& fo) {
          xrng::transform(job.plan, job.key, job.offset, s + b, e - b, in + b * es,
                          static_cast<char*>(dst) + b * es, fo);
        });
      };
    }
    case Job::Op::perm_shard:
      return [&job, opts](uint64_t s, uint64_t c, void* dst) {
        const size_t es = static_cast<size_t>(dtype_size(job.plan.dtype));
        on_host_threads(c, opts, [&](uint64_t b, uint64_t e, const FillOptions& fo) {
          xrng::perm_shard(job.plan, job.key, job.offset, job.rank, job.world, job.first + s + b, e - b,
                           static_cast<char*>(dst) + b * es, fo);
        });
      };
  }
  throw Error("host_producer: unknown job");
}

#if defined(XRNG_TORCH_CUDA)
// The CUDA kernels, asynchronous on `stream` (the current stream of the
// tensor's device; the caller holds a CUDAGuard for it), straight into
// `dst`, count elements. The memory is a CUDA tensor's, so the *_device
// entry points skip the pointer query of the public API (device/direct.h).
void cuda_direct(const Job& job, const at::Device& device, cudaStream_t stream, uint64_t count, void* dst) {
  if (job.position.defined()) {  // the position is read by the kernel (device_position)
    const int64_t* pos = job.position.data_ptr<int64_t>();
    switch (job.op) {
      case Job::Op::fill:
        xrng::cuda::detail::fill_at(job.plan, pos, 0, count, dst, stream);
        return;
      case Job::Op::transform: {
        const at::Tensor x = job.input.to(device).contiguous();
        xrng::cuda::detail::transform_at(job.plan, pos, 0, count, x.data_ptr(), dst, stream);
        return;
      }
      case Job::Op::perm_shard:
        xrng::cuda::detail::perm_shard_at(job.plan, pos, job.rank, job.world, job.first, count, dst, stream);
        return;
    }
  }
  switch (job.op) {
    case Job::Op::fill:
      xrng::cuda::detail::fill_device(job.plan, job.key, job.offset, 0, count, dst, stream);
      return;
    case Job::Op::transform: {
      const at::Tensor x = job.input.to(device).contiguous();
      xrng::cuda::detail::transform_device(job.plan, job.key, job.offset, 0, count, x.data_ptr(), dst, stream);
      return;
    }
    case Job::Op::perm_shard:
      xrng::cuda::detail::perm_shard_device(job.plan, job.key, job.offset, job.rank, job.world, job.first, count,
                                            dst, stream);
      return;
  }
  throw Error("cuda_direct: unknown job");
}
#endif

// ---- landing in the tensor ---------------------------------------------------------------------
// write(t) fills a contiguous tensor of the stage type on out's device with
// elements [0, out.numel()) in row-major order. It writes into `out` itself
// when out is contiguous and of that type (no view is made: a small draw
// should cost no tensor allocation), else into a 1-D temporary that is then
// copied into out (strides, or a conversion such as an i32 draw into int8).
template <class Write>
void land(at::Tensor& out, at::ScalarType stage, Write&& write) {
  if (out.is_contiguous() && out.scalar_type() == stage) {
    write(out);
    return;
  }
  at::Tensor tmp = at::empty({out.numel()}, out.options().dtype(stage));
  write(tmp);
  out.copy_(tmp.view(out.sizes()));
}

// ---- host-then-transfer: pinned, double-buffered ----------------------------------------------
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
// buffering below needs to know when a buffer may be refilled). Recording is
// the probe; nothing waits on it (a synchronize here would wait for all the
// work queued before the draw).
bool events_work(const at::Device& device) {
  try {
    c10::impl::VirtualGuardImpl impl(device.type());
    c10::Event e(device.type());
    e.record(impl.getStream(device));
    return true;
  } catch (const c10::Error&) {
    return false;
  }
}

// Elements per chunk of the transfer: an eighth of the tensor, between 1 and
// 8 MiB, a multiple of 4096 elements (chunks start on group and Philox-block
// boundaries: not needed for the values, which do not depend on the split,
// but it keeps the SIMD path whole). Eight or more chunks: the first chunk's
// generation and the last chunk's copy, the parts that cannot overlap, are
// at most an eighth of each.
constexpr uint64_t kMinChunkBytes = 1u << 20, kMaxChunkBytes = 8u << 20;
uint64_t chunk_elements(at::ScalarType t, uint64_t n) {
  const uint64_t es = c10::elementSize(t);
  const uint64_t bytes = std::clamp<uint64_t>(n * es / 8, kMinChunkBytes, kMaxChunkBytes);
  return std::max<uint64_t>(4096, bytes / es / 4096 * 4096);
}

// Runs produce over [0, dst.numel()) in chunks on the host (all host threads,
// host_producer) and copies each chunk into the contiguous device tensor dst.
// With pinned memory and device events the copies are non-blocking on the
// device's current stream and two buffers alternate: chunk k+1 is generated
// while chunk k is copied, so the time approaches max(generation, copy)
// rather than their sum. Otherwise the copies are synchronous.
void host_transfer(at::Tensor& out, const Producer& produce) {
  const uint64_t n = static_cast<uint64_t>(out.numel());
  if (n == 0) return;
  at::Tensor dst = out.view({static_cast<int64_t>(n)});
  const at::ScalarType type = dst.scalar_type();
  const at::Device device = dst.device();
  const uint64_t chunk = std::min(n, chunk_elements(type, n));
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

}  // namespace

bool device_position(const at::Tensor& position, const at::Tensor& out) {
#if defined(XRNG_TORCH_CUDA)
  return position.defined() && position.is_cuda() && out.is_cuda() && position.device() == out.device();
#else
  (void)position;
  (void)out;
  return false;
#endif
}

bool cuda_capturing(const at::Tensor& out) {
#if defined(XRNG_TORCH_CUDA)
  if (!out.defined() || !out.is_cuda()) return false;
  const c10::cuda::CUDAGuard guard(out.device());
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  const cudaError_t e = cudaStreamIsCapturing(c10::cuda::getCurrentCUDAStream(out.device().index()).stream(), &st);
  return e == cudaSuccess && st != cudaStreamCaptureStatusNone;
#else
  (void)out;
  return false;
#endif
}

void check_not_capturing(const at::Tensor& out, const c10::Device& state) {
  if (state != out.device() && cuda_capturing(out))
    throw Error("a draw from a generator whose state is on " + state.str() +
                " cannot be captured in a CUDA graph (each replay would repeat the captured values): draw from "
                "xrng.Generator(seed, device=\"" + out.device().str() + "\") or with seed=");
}

at::Tensor take_on_device(at::Tensor& state, int stream, uint64_t words) {
#if defined(XRNG_TORCH_CUDA)
  if (!state.is_cuda() || !state.is_contiguous())
    throw Error("xrng::take_: a device generator state must be a contiguous CUDA tensor");
  const c10::cuda::CUDAGuard guard(state.device());
  at::Tensor before = at::empty({4}, state.options());
  xrng::cuda::detail::take_at(state.data_ptr<int64_t>(), before.data_ptr<int64_t>(), stream, words,
                              c10::cuda::getCurrentCUDAStream(state.device().index()).stream());
  return before;
#else
  (void)stream;
  (void)words;
  throw Error("xrng::take_: no CUDA kernels in this build for the state on " + state.device().str());
#endif
}

bool fill_small_host(at::Tensor& out, const Plan& plan, const Key& key, uint64_t offset, at::ScalarType stage,
                     const RunOptions& opts) {
  const uint64_t n = static_cast<uint64_t>(out.numel());
  if (opts.path != Path::automatic || opts.threads != 0 || n == 0 || n >= 2 * kMinPart || !out.device().is_cpu() ||
      out.scalar_type() != stage || !out.is_contiguous())
    return false;
  FillOptions fo;  // as on_host_threads gives a count below a split: one part, one thread
  fo.threads = 1;
  xrng::fill(plan, key, offset, 0, n, out.data_ptr(), fo);
  return true;
}

void run(at::Tensor& out, const Job& job, at::ScalarType stage, const RunOptions& opts) {
  if (job.position.defined() && !(out.is_cuda() && opts.path == Path::automatic && device_position(job.position, out)))
    throw Error("a position in device memory is read by the CUDA kernels only (a CUDA output on its device, "
                "path='auto')");
  if (out.numel() == 0) return;
#if defined(XRNG_TORCH_CUDA)
  // CUDA tensors: the kernels, on the device's current stream, no host sync.
  if (out.device().is_cuda() && opts.path == Path::automatic) {
    const c10::cuda::CUDAGuard guard(out.device());
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(out.device().index()).stream();
    land(out, stage, [&](at::Tensor& t) {
      cuda_direct(job, out.device(), stream, static_cast<uint64_t>(t.numel()), t.data_ptr());
    });
    return;
  }
#endif
  const Producer p = host_producer(job, opts);
  if (out.device().is_cpu())
    land(out, stage, [&p](at::Tensor& t) { p(0, static_cast<uint64_t>(t.numel()), t.data_ptr()); });
  else
    land(out, stage, [&p](at::Tensor& t) { host_transfer(t, p); });
}

}  // namespace detail
}  // namespace xrng::torch_api
