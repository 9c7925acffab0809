// A minimal PrivateUse1 backend for the tests, registered the way PyTorch's
// open-registration example does: an allocator, a (no-op) device guard, and
// the few aten kernels that tensor creation, views and copies need. Its
// memory is host memory, but torch treats it as a separate device ("xdev"
// after torch.utils.rename_privateuse1_backend), so xrng's other-device path
// (generate on the host, copy to the device) runs for real: every xdev tensor
// is filled through _copy_from below, never by xrng writing into it.
//
// Pinned host memory and events, like a real accelerator's, can be switched on
// (set_pinning(True)): xrng then takes its double-buffered non-blocking path,
// and the counters below show that it did. Copies here are synchronous, so
// the events are complete as soon as they are recorded.
#include <torch/extension.h>

#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>

#include <ATen/detail/PrivateUse1HooksInterface.h>

#include <atomic>

namespace {

std::atomic<int64_t> g_copies_in{0};   // host -> xdev copies
std::atomic<int64_t> g_copies_out{0};  // xdev -> host copies

std::atomic<bool> g_pinning{false};
std::atomic<int64_t> g_pinned_allocs{0};
std::atomic<int64_t> g_events{0};

void xdev_free(void* p) { c10::free_cpu(p); }

// "Pinned" host memory: plain host memory, counted.
struct PinnedAllocator final : at::Allocator {
  at::DataPtr allocate(size_t n) override {
    ++g_pinned_allocs;
    void* p = n ? c10::alloc_cpu(n) : nullptr;
    return {p, p, &xdev_free, at::Device(at::kCPU)};
  }
  at::DeleterFnPtr raw_deleter() const override { return &xdev_free; }
  void copy_data(void* dest, const void* src, std::size_t count) const final { default_copy_data(dest, src, count); }
};
PinnedAllocator g_pinned;

struct XdevHooks final : at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return true; }
  bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
  at::Device getDeviceFromPtr(void*) const override { return at::Device(at::DeviceType::PrivateUse1, 0); }
  at::Allocator* getPinnedMemoryAllocator() const override {
    TORCH_CHECK(g_pinning.load(), "xdev: pinned memory is switched off");
    return &g_pinned;
  }
};

// Device guard with events (the copies are synchronous, so an event is
// complete when recorded).
struct XdevGuardImpl final : c10::impl::NoOpDeviceGuardImpl<c10::DeviceType::PrivateUse1> {
  void record(void** event, const c10::Stream&, const c10::DeviceIndex, const c10::EventFlag) const override {
    TORCH_CHECK(g_pinning.load(), "xdev: events are switched off with pinned memory");
    if (*event == nullptr) *event = &g_events;  // any non-null handle
    ++g_events;
  }
  void block(void*, const c10::Stream&) const override {}
  bool queryEvent(void*) const override { return true; }
  void synchronizeEvent(void*) const override {}
  void destroyEvent(void*, const c10::DeviceIndex) const noexcept override {}
};

struct XdevAllocator final : at::Allocator {
  at::DataPtr allocate(size_t n) override {
    void* p = n ? c10::alloc_cpu(n) : nullptr;
    return {p, p, &xdev_free, at::Device(at::DeviceType::PrivateUse1, 0)};
  }
  at::DeleterFnPtr raw_deleter() const override { return &xdev_free; }
  void copy_data(void* dest, const void* src, std::size_t count) const final { default_copy_data(dest, src, count); }
};
XdevAllocator g_alloc;

constexpr c10::DispatchKeySet kXdevKeys(c10::DispatchKey::PrivateUse1);

at::Tensor xdev_empty(c10::IntArrayRef size, std::optional<at::ScalarType> dtype, std::optional<at::Layout>,
                      std::optional<at::Device>, std::optional<bool>, std::optional<at::MemoryFormat> memory_format) {
  return at::detail::empty_generic(size, &g_alloc, kXdevKeys, c10::dtype_or_default(dtype), memory_format);
}

at::Tensor xdev_empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride, std::optional<at::ScalarType> dtype,
                              std::optional<at::Layout>, std::optional<at::Device>, std::optional<bool>) {
  return at::detail::empty_strided_generic(size, stride, &g_alloc, kXdevKeys, c10::dtype_or_default(dtype));
}

// A CPU tensor over the same bytes (the device's memory is host memory).
at::Tensor host_alias(const at::Tensor& t) {
  if (t.device().is_cpu()) return t;
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(at::kCPU));
}

at::Tensor xdev_copy_from(const at::Tensor& self, const at::Tensor& dst, bool /*non_blocking*/) {
  if (self.device().is_cpu() && !dst.device().is_cpu()) ++g_copies_in;
  if (!self.device().is_cpu() && dst.device().is_cpu()) ++g_copies_out;
  host_alias(dst).copy_(host_alias(self));
  return dst;
}

at::Tensor xdev_copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  TORCH_CHECK(dst.sizes().equals(self.sizes()), "xdev: _copy_from_and_resize cannot resize");
  return xdev_copy_from(self, dst, false);
}

at::Tensor& xdev_fill_scalar(at::Tensor& self, const at::Scalar& v) {
  host_alias(self).fill_(v);
  return self;
}

// Every other operator (arithmetic in the examples' sampling loops) runs on the
// CPU through torch's boxed CPU fallback, moving its tensors by _copy_from.
void xdev_cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) { at::native::cpu_fallback(op, stack); }

}  // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, XdevGuardImpl);
static const bool g_hooks_registered = [] {
  at::RegisterPrivateUse1HooksInterface(new XdevHooks);
  return true;
}();
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_alloc);

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", xdev_empty);
  m.impl("empty_strided", xdev_empty_strided);
  m.impl("_copy_from", xdev_copy_from);
  m.impl("_copy_from_and_resize", xdev_copy_from_and_resize);
  m.impl("fill_.Scalar", xdev_fill_scalar);
  m.impl("view", at::native::view);
  m.impl("as_strided", at::native::as_strided_tensorimpl);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&xdev_cpu_fallback>());
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("copies_in", [] { return g_copies_in.load(); }, "host -> xdev copies so far");
  m.def("copies_out", [] { return g_copies_out.load(); }, "xdev -> host copies so far");
  m.def("set_pinning", [](bool on) { g_pinning = on; }, "switch pinned host memory and events on or off");
  m.def("pinned_allocs", [] { return g_pinned_allocs.load(); }, "pinned host buffers allocated so far");
  m.def("events", [] { return g_events.load(); }, "events recorded so far");
}
