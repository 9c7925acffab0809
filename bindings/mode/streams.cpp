// The reproducible mode's streams: see streams.h.
#include "streams.h"

#include <c10/util/Exception.h>
#include <c10/util/bit_cast.h>

namespace xrng::torch_api::mode::detail {

const at::mt19937_data_pod& pod_of(const at::mt19937& e) {
  // mt19937_engine's only member is its mt19937_data_pod (standard layout)
  return reinterpret_cast<const at::mt19937_data_pod&>(e);
}

TorchState digest_of(const at::mt19937_data_pod& pod, at::CPUGeneratorImpl* impl) {
  TorchState s;
  s.valid = s.cpu = true;
  const std::optional<float>& nf = float_normal_in_place(impl);
  const std::optional<double>& nd = double_normal_in_place(impl);
  s.digest = {pod.seed_,
              static_cast<uint64_t>(static_cast<uint32_t>(pod.left_)) | (uint64_t{pod.seeded_} << 32),
              pod.next_,
              pod.state_[0] | (uint64_t{pod.state_[1]} << 32),
              pod.state_[2] | (uint64_t{pod.state_[3]} << 32),
              pod.state_[311] | (uint64_t{pod.state_[622]} << 32),
              pod.state_[623],
              nf ? 1 : 0,
              nf ? c10::bit_cast<uint32_t>(*nf) : 0,
              nd ? 1 : 0,
              nd ? c10::bit_cast<uint64_t>(*nd) : 0,
              0};
  return s;
}

TorchState read_state(const at::Generator& g, Live* live) {
  if (g.device().is_cpu()) {
    auto* impl = at::check_generator<at::CPUGeneratorImpl>(g);
    if (live != nullptr) live->impl = impl;
    return digest_of(pod_in_place(impl), impl);
  }
  TorchState s;
  s.valid = true;
  const at::Tensor t = g.get_state();
  const auto* p = t.data_ptr<uint8_t>();
  s.bytes.assign(p, p + t.numel());
  return s;
}

// CPUGeneratorImpl's engine in place: an explicit instantiation may name a
// private member ([temp.spec.general]/6 of C++20), so this reads the member
// pointer the compiler lays out from torch's own header.
at::mt19937 at::CPUGeneratorImpl::* engine_member();
template <at::mt19937 at::CPUGeneratorImpl::* M>
struct EngineMember {
  friend at::mt19937 at::CPUGeneratorImpl::* engine_member() { return M; }
};
template struct EngineMember<&at::CPUGeneratorImpl::engine_>;

at::mt19937_data_pod& pod_in_place(at::CPUGeneratorImpl* impl) {
  return const_cast<at::mt19937_data_pod&>(pod_of(impl->*engine_member()));
}

// Its cached second normals, the same way (next_float_normal_sample() and
// the setters are calls into libtorch, a tenth of a small draw's cost).
std::optional<float> at::CPUGeneratorImpl::* float_normal_member();
std::optional<double> at::CPUGeneratorImpl::* double_normal_member();
template <std::optional<float> at::CPUGeneratorImpl::* F, std::optional<double> at::CPUGeneratorImpl::* D>
struct NormalMembers {
  friend std::optional<float> at::CPUGeneratorImpl::* float_normal_member() { return F; }
  friend std::optional<double> at::CPUGeneratorImpl::* double_normal_member() { return D; }
};
template struct NormalMembers<&at::CPUGeneratorImpl::next_float_normal_sample_,
                              &at::CPUGeneratorImpl::next_double_normal_sample_>;

std::optional<float>& float_normal_in_place(at::CPUGeneratorImpl* impl) { return impl->*float_normal_member(); }
std::optional<double>& double_normal_in_place(at::CPUGeneratorImpl* impl) { return impl->*double_normal_member(); }

uint32_t g_marks = 0;  // marks made in this process (each mark a new value)

// Marks the generator (see mode.h) and returns its new state: one torch's
// own draws cannot reach. mt19937: the low 31 bits of state word 0 are never
// read again (a twist reads its top bit; word 0 is output only after a twist).
// `live`: the generator read at the start of this draw (its mutex held since).
TorchState mark(at::Generator& g, Live* live) {
  if (g.device().is_cpu()) {
    auto* impl = live != nullptr && live->impl != nullptr ? live->impl : at::check_generator<at::CPUGeneratorImpl>(g);
    at::mt19937_data_pod& pod = pod_in_place(impl);
    g_marks = g_marks % 0x7FFFFFFFu + 1;
    pod.state_[0] = (pod.state_[0] & 0x80000000u) | g_marks;
    return digest_of(pod, impl);
  }
  try {  // Philox generators: the offset moves by 2^34 words
    g.set_offset(g.get_offset() + (uint64_t{1} << 34));
  } catch (const c10::Error&) {
  }
  return read_state(g);
}

TorchState fresh_state(const at::Generator& g) {
  at::Generator f = g.clone();
  f.set_current_seed(g.current_seed());
  return read_state(f);
}

// The mode's state lives as long as the process and is never destroyed: a
// program may leave a mode active until it exits (a script's enable(), a
// DataLoader worker's), and destroying registrations, Python callbacks or
// generator references after torch's dispatcher or Python itself are gone
// would crash the exit.
std::recursive_mutex& g_lock = *new std::recursive_mutex;
std::vector<Entry>& g_entries = *new std::vector<Entry>;
std::atomic<int> g_stream_now{-1};
std::atomic<int> g_release_now{0};
uint64_t g_entry_ids = 0;
Record& g_global = *new Record;
std::unordered_map<c10::GeneratorImpl*, Record>& g_records = *new std::unordered_map<c10::GeneratorImpl*, Record>;
// The op of the last draw (reports name it): a pointer to a string that lives
// as long as the process (the rows' names, the literals below).
const std::string* g_last_op = nullptr;
const std::string kStart = "the start of the mode", kInnerEnd = "the end of an inner mode";
// Threads: the mode belongs to the thread that entered it (and to the autograd
// engine's threads while they run a backward pass). A call of another thread
// is torch's own, warned; its draws from the default generator are named here
// until the mode's next draw reports them.
std::thread::id g_owner;
std::string& g_foreign = *new std::string;
std::string last_op() { return g_last_op ? *g_last_op : kStart; }

const Config& config() { return g_entries.back().config; }

Key key_of(uint64_t seed, std::optional<uint64_t> tag) {
  if (config().torch != 0) return Key(seed, 0);  // torch-cuda: the torch seed itself (torch_streams.h)
  Generator g(seed, 0, 0, config().stream);
  return tag ? g.fold_in(*tag).key() : g.key();
}

void report(const std::string& op, const std::string& why) {
  if (!g_entries.empty() && config().report) config().report(op, why);
}

at::Generator default_cpu() { return at::detail::getDefaultCPUGenerator(); }
c10::GeneratorImpl* default_impl() {
  static c10::GeneratorImpl* const p = default_cpu().unsafeGetGeneratorImpl();  // lives as long as the process
  return p;
}

// The record a draw with `gen` uses, and the generator that names it.
Record& record_for(const std::optional<at::Generator>& gen, at::Generator& named) {
  if (!gen.has_value() || !gen->defined() || gen->unsafeGetGeneratorImpl() == default_impl()) {
    named = default_cpu();
    return g_global;
  }
  named = *gen;
  auto* impl = named.unsafeGetGeneratorImpl();
  auto it = g_records.find(impl);
  if (it != g_records.end() && it->second.owner.lock().get() != impl) g_records.erase(it);  // a dead generator's address
  return g_records[impl];
}

const Pos* copied_position(const at::Generator& g, uint64_t h) {
  for (auto& [impl, rec] : g_records) {
    if (impl == g.unsafeGetGeneratorImpl()) continue;
    if (const Pos* p = rec.recorded(h)) return p;
  }
  if (g.unsafeGetGeneratorImpl() != default_impl()) return g_global.recorded(h);
  return nullptr;
}

// Where a draw with `named` starts (SPEC 8.1): the state decides.
Pos& resolve(Record& rec, at::Generator& named, bool fresh_record, const std::string& op, Live* live) {
  const TorchState st = read_state(named, live);
  const std::optional<uint64_t> tag = rec.global ? std::optional<uint64_t>(config().tag) : std::nullopt;
  if (!fresh_record && rec.state.valid && st == rec.state) {
    // unchanged since the last draw
  } else if (rec.global && !g_foreign.empty()) {
    // another thread drew from it (seen by the kernels): its state may now be
    // one recorded earlier, which is no restore; the stream continues
    const std::string ops = g_foreign;
    g_foreign.clear();
    rec.state = st;  // reported once (strict: raised before anything is written)
    report("torch's default generator",
           "was drawn from by a thread without the mode (" + ops + "), between " + last_op() + " and " + op);
  } else if (st == fresh_state(named)) {
    rec.pos = Pos{key_of(named.current_seed(), tag), 0};
  } else if (const Pos* p = fresh_record ? nullptr : rec.recorded(st.hash())) {
    rec.pos = *p;  // a recorded state: back to its position
  } else if (const Pos* p = copied_position(named, st.hash())) {
    rec.pos = *p;  // another generator's state copied in: its position
  } else if (fresh_record) {
    rec.pos = Pos{key_of(named.current_seed(), tag), 0};
  } else if (rec.global || rec.entry == g_entries.back().id) {
    // reported once: the state is taken as it is
    const std::string what = rec.global ? "torch's default generator"
                                        : "a torch.Generator (seed " + std::to_string(named.current_seed()) + ")";
    const std::string between = ", between " + last_op() + " and " + op;
    const TorchState before = rec.state;
    rec.state = st;
    if (st.cpu && before.cpu && (st.digest[3] & 0x7FFFFFFFu) != (before.digest[3] & 0x7FFFFFFFu)) {
      // word 0 no longer carries the mode's mark: the state was set (or drawn past a twist)
      report(what, std::string("was set by ") + (rec.global ? "torch.set_rng_state" : "Generator.set_state") +
                       " to a state the mode did not record (or drawn from past a twist of its mt19937 by "
                       "something the mode did not draw)" + between);
    } else {
      report(what, "was advanced by something the mode did not draw" + between);
    }
  }
  rec.state = st;
  return rec.pos;
}

// The mark of a CPU generator whose state `s` this draw read (resolve(), its
// mutex held since): the digest after the mark is `s` with word 0 changed, so
// it is patched rather than read again. Returns false (nothing marked) where
// the engine is not the one `s` describes.
bool remark(TorchState& s, at::CPUGeneratorImpl* impl) {
  if (!s.valid || !s.cpu) return false;
  at::mt19937_data_pod& pod = pod_in_place(impl);
  const uint64_t w3 = pod.state_[0] | (uint64_t{pod.state_[1]} << 32);
  if (s.digest[0] != pod.seed_ ||
      s.digest[1] != (static_cast<uint64_t>(static_cast<uint32_t>(pod.left_)) | (uint64_t{pod.seeded_} << 32)) ||
      s.digest[2] != pod.next_ || s.digest[3] != w3 ||
      s.digest[4] != (pod.state_[2] | (uint64_t{pod.state_[3]} << 32)) ||
      s.digest[5] != (pod.state_[311] | (uint64_t{pod.state_[622]} << 32)) || s.digest[6] != pod.state_[623])
    return false;
  g_marks = g_marks % 0x7FFFFFFFu + 1;  // as mark()
  pod.state_[0] = (pod.state_[0] & 0x80000000u) | g_marks;
  s.digest[3] = pod.state_[0] | (uint64_t{pod.state_[1]} << 32);
  return true;
}

void commit(Record& rec, at::Generator& named, const std::string& op, Live* live) {
  if (live == nullptr || live->impl == nullptr || !remark(rec.state, live->impl)) rec.state = mark(named, live);
  rec.entry = g_entries.back().id;
  rec.remember(rec.state.hash());
  g_last_op = &op;
}

// record_for, and whether the record is new (then it remembers its generator). Under g_lock.
Record& record_of(const std::optional<at::Generator>& gen, at::Generator& named, bool& is_new) {
  is_new = gen.has_value() && gen->defined() && gen->unsafeGetGeneratorImpl() != default_impl() &&
           g_records.find(gen->unsafeGetGeneratorImpl()) == g_records.end();
  Record& rec = record_for(gen, named);
  if (is_new) rec.owner = c10::weak_intrusive_ptr<c10::GeneratorImpl>(named.getIntrusivePtr());
  return rec;
}

// Before torch's own kernel runs a call (nothing to draw, or refused): the
// generator's state is resolved as a draw would resolve it, so a re-seed or a
// restore made before the call is not lost when absorb() takes the state
// torch's kernel leaves.
void settle(const std::optional<at::Generator>& gen, const std::string& op) {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  at::Generator named;
  bool is_new = false;
  Record& rec = record_of(gen, named, is_new);
  std::lock_guard<std::mutex> glock(named.mutex());
  resolve(rec, named, is_new, op);
}

// After torch's own kernel drew for a reported call: its draws are not foreign.
void absorb(const std::optional<at::Generator>& gen) {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  at::Generator named;
  Record& rec = record_for(gen, named);
  if (!rec.state.valid) return;
  std::lock_guard<std::mutex> glock(named.mutex());
  rec.state = read_state(named);
  rec.remember(rec.state.hash());
}

}  // namespace xrng::torch_api::mode::detail
