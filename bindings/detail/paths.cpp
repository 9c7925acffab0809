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

#include "../../device/xrng_cuda.h"
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

void check_writable(const at::Tensor& t, const char* what) {
  if (!t.defined()) throw Error(std::string(what) + ": undefined tensor");
  if (t.layout() != at::kStrided)
    throw Error(std::string(what) + ": only strided tensors can be filled (got layout " + c10::str(t.layout()) + ")");
  if (t.is_meta() || !t.has_storage())
    throw Error(std::string(what) + ": no path for device " + t.device().str() + " (a tensor without memory)");
}

namespace {

// produce(start, count, dst): elements [start, start + count) of the job into
// the contiguous buffer dst (dst[0] is element start), in the memory of the
// backend that computes them.
using Producer = std::function<void(uint64_t start, uint64_t count, void* dst)>;

// ---- producers: one per backend, each the backend's call for every Job::Op ------------------
Producer host_producer(const Job& job, const RunOptions& opts) {
  FillOptions fo;
  fo.threads = opts.threads > 0 ? opts.threads : at::get_num_threads();
  switch (job.op) {
    case Job::Op::fill:
      return [&job, fo](uint64_t s, uint64_t c, void* dst) {
        xrng::fill(job.plan, job.key, job.offset, s, c, dst, fo);
      };
    case Job::Op::transform: {
      // The input comes to the host once, in row-major order; the lambda keeps it alive.
      const at::Tensor x = job.input.to(at::kCPU).contiguous();
      const size_t es = x.element_size();
      return [&job, fo, x, es](uint64_t s, uint64_t c, void* dst) {
        const char* in = static_cast<const char*>(x.data_ptr()) + s * es;
        xrng::transform(job.plan, job.key, job.offset, s, c, in, dst, fo);
      };
    }
    case Job::Op::perm_shard:
      return [&job, fo](uint64_t s, uint64_t c, void* dst) {
        xrng::perm_shard(job.plan, job.key, job.offset, job.rank, job.world, job.first + s, c, dst, fo);
      };
  }
  throw Error("host_producer: unknown job");
}

#if defined(XRNG_TORCH_CUDA)
// The CUDA kernels, asynchronous on the current stream of `device`; the
// caller holds a CUDAGuard for it.
Producer cuda_producer(const Job& job, const at::Device& device) {
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(device.index()).stream();
  const xrng::cuda::LaunchConfig cfg{};
  switch (job.op) {
    case Job::Op::fill:
      return [&job, stream, cfg](uint64_t s, uint64_t c, void* dst) {
        xrng::cuda::fill(job.plan, job.key, job.offset, s, c, dst, stream, cfg);
      };
    case Job::Op::transform: {
      const at::Tensor x = job.input.to(device).contiguous();
      const size_t es = x.element_size();
      return [&job, stream, cfg, x, es](uint64_t s, uint64_t c, void* dst) {
        xrng::cuda::transform(job.plan, job.key, job.offset, s, c, static_cast<const char*>(x.data_ptr()) + s * es,
                              dst, stream, cfg);
      };
    }
    case Job::Op::perm_shard:
      return [&job, stream, cfg](uint64_t s, uint64_t c, void* dst) {
        xrng::cuda::perm_shard(job.plan, job.key, job.offset, job.rank, job.world, job.first + s, c, dst, stream, cfg);
      };
  }
  throw Error("cuda_producer: unknown job");
}
#endif

// ---- landing in the tensor ---------------------------------------------------------------------
// write(flat) fills a contiguous 1-D tensor of the stage type on out's device
// with elements [0, out.numel()). It writes into `out` itself when out is
// contiguous and of that type, else into a temporary that is then copied
// into out (strides, or a conversion such as an i32 draw into int8).
template <class Write>
void land(at::Tensor& out, at::ScalarType stage, Write&& write) {
  const int64_t n = out.numel();
  if (out.is_contiguous() && out.scalar_type() == stage) {
    at::Tensor flat = out.view({n});
    write(flat);
    return;
  }
  at::Tensor tmp = at::empty({n}, out.options().dtype(stage));
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

// Runs produce over [0, dst.numel()) in chunks on the host and copies each
// chunk into the contiguous 1-D device tensor dst. With pinned memory and
// device events the copies are non-blocking and two buffers alternate: chunk
// k+1 is generated while chunk k is in flight.
void host_transfer(at::Tensor& dst, const Producer& produce) {
  const uint64_t n = static_cast<uint64_t>(dst.numel());
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

}  // namespace

void run(at::Tensor& out, const Job& job, at::ScalarType stage, const RunOptions& opts) {
  if (out.numel() == 0) return;
  // Backends that write device memory directly: the whole tensor in one call.
  const auto direct = [](const Producer& p) {
    return [&p](at::Tensor& flat) { p(0, static_cast<uint64_t>(flat.numel()), flat.data_ptr()); };
  };
#if defined(XRNG_TORCH_CUDA)
  if (out.device().is_cuda() && opts.path == Path::automatic) {
    const c10::cuda::CUDAGuard guard(out.device());
    const Producer p = cuda_producer(job, out.device());
    land(out, stage, direct(p));
    return;
  }
#endif
  const Producer p = host_producer(job, opts);
  if (out.device().is_cpu())
    land(out, stage, direct(p));
  else
    land(out, stage, [&p](at::Tensor& flat) { host_transfer(flat, p); });
}

}  // namespace detail
}  // namespace xrng::torch_api
