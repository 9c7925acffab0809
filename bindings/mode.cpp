// The reproducible mode's dispatcher engine: see mode.h. Three parts:
//   1. streams: which xrng position a draw with a torch generator starts at
//      (re-seeds, restores and copies recognised by the generator's state);
//   2. the table kModeOps: one row per covered aten operator, and its kernel
//      (one boxed functor per row and dispatch key: the form of the row
//      reads the operator's arguments from the stack);
//   3. installation: torch::Library objects made at the first entry, dropped
//      at the last (torch's kernels come back).
// Torch's own kernel of each (operator, key) is kept (getComputedKernelForDispatchKey)
// for three things: its argument checks (run once on a zero-element tensor
// for each new (operator, dtype, scalar arguments), so errors are torch's
// own, word for word), the calls xrng does not draw (reported), and the
// calls with nothing to draw.
#include "mode.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/Resize.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>
#include <c10/util/bit_cast.h>
#include <torch/csrc/autograd/graph_task.h>
#include <torch/library.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "detail/dtypes.h"
#include "ops.h"
#include "xrng_torch.h"

namespace xrng::torch_api::mode {
namespace {

using Stack = torch::jit::Stack;

// ==== 1. streams ===================================================================================
struct Pos {
  Key key;
  uint64_t offset = 0;
};

// A torch generator's state as the mode compares it. CPU generators: a
// digest of the mt19937 data (seed, position, and words 0-3, 311, 622, 623:
// word 0 carries the mark, so the digest of every state the mode recorded is
// unique, and torch's own draws move the position or, at a twist, every word)
// and the cached normals; reading it copies the engine once (5 KB), the
// cost that matters on the hot path. Other generators: their serialised
// bytes (a Philox state is seed and offset).
struct TorchState {
  bool valid = false;
  bool cpu = false;
  std::array<uint64_t, 12> digest{};
  std::vector<uint8_t> bytes;  // non-CPU generators
  bool operator==(const TorchState& o) const {
    return valid == o.valid && cpu == o.cpu && digest == o.digest && bytes == o.bytes;
  }
  uint64_t hash() const {
    uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; h ^= h >> 29; };
    for (uint64_t v : digest) mix(v);
    for (uint8_t b : bytes) mix(b);
    return h;
  }
};

const at::mt19937_data_pod& pod_of(const at::mt19937& e) {
  // mt19937_engine's only member is its mt19937_data_pod (standard layout)
  return reinterpret_cast<const at::mt19937_data_pod&>(e);
}

TorchState digest_of(const at::mt19937_data_pod& pod, at::CPUGeneratorImpl* impl) {
  TorchState s;
  s.valid = s.cpu = true;
  const auto nf = impl->next_float_normal_sample();
  const auto nd = impl->next_double_normal_sample();
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

// The engine of a CPU generator, copied once per draw: read for the state's
// digest, marked, and written back (three 5 KB copies, the API's minimum).
struct Live {
  at::CPUGeneratorImpl* impl = nullptr;
  std::optional<at::mt19937> engine;  // (mt19937's default constructor seeds: 624 steps)
};

TorchState read_state(const at::Generator& g, Live* live = nullptr) {
  if (g.device().is_cpu()) {
    auto* impl = at::check_generator<at::CPUGeneratorImpl>(g);
    if (live != nullptr) {
      live->impl = impl;
      live->engine.emplace(impl->engine());
      return digest_of(pod_of(*live->engine), impl);
    }
    const at::mt19937 e = impl->engine();
    return digest_of(pod_of(e), impl);
  }
  TorchState s;
  s.valid = true;
  const at::Tensor t = g.get_state();
  const auto* p = t.data_ptr<uint8_t>();
  s.bytes.assign(p, p + t.numel());
  return s;
}

uint32_t g_marks = 0;  // marks made in this process (each mark a new value)

// Marks the generator (see mode.h) and returns its new state: one torch's
// own draws cannot reach. mt19937: the low 31 bits of state word 0 are never
// read again (a twist reads its top bit; word 0 is output only after a twist).
// `live`: the engine read at the start of this draw (the generator's mutex
// has been held since).
TorchState mark(at::Generator& g, Live* live = nullptr) {
  if (g.device().is_cpu()) {
    Live local;
    if (live == nullptr || live->impl == nullptr) {
      local.impl = at::check_generator<at::CPUGeneratorImpl>(g);
      local.engine.emplace(local.impl->engine());
      live = &local;
    }
    auto& pod = const_cast<at::mt19937_data_pod&>(pod_of(*live->engine));
    g_marks = g_marks % 0x7FFFFFFFu + 1;
    pod.state_[0] = (pod.state_[0] & 0x80000000u) | g_marks;
    live->impl->set_engine(*live->engine);
    return digest_of(pod, live->impl);
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

constexpr size_t kHistory = 1024;

struct Record {
  c10::weak_intrusive_ptr<c10::GeneratorImpl> owner{c10::intrusive_ptr<c10::GeneratorImpl>()};
  bool global = false;
  Pos pos;
  TorchState state;  // the generator's state when pos was last valid
  // the states recorded after the last kHistory draws and their positions (a
  // ring: written on every draw, searched only when the state changed)
  std::vector<std::pair<uint64_t, Pos>> history;
  size_t next = 0;
  uint64_t entry = 0;  // the entry active at the last draw
  void remember(uint64_t h) {
    if (history.size() < kHistory) {
      history.emplace_back(h, pos);
    } else {
      history[next] = {h, pos};
      next = (next + 1) % kHistory;
    }
  }
  const Pos* recorded(uint64_t h) const {  // the newest record of state h
    for (size_t i = history.size(); i-- > 0;) {
      const auto& e = history[(next + i) % history.size()];
      if (e.first == h) return &e.second;
    }
    return nullptr;
  }
};

struct Entry {
  Config config;
  std::optional<Pos> saved;  // the global position of the enclosing entry
  uint64_t id = 0;
};

// The mode's state lives as long as the process and is never destroyed: a
// program may leave a mode active until it exits (a script's enable(), a
// DataLoader worker's), and destroying registrations, Python callbacks or
// generator references after torch's dispatcher or Python itself are gone
// would crash the exit.
std::recursive_mutex& g_lock = *new std::recursive_mutex;
std::vector<Entry>& g_entries = *new std::vector<Entry>;
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
Pos& resolve(Record& rec, at::Generator& named, bool fresh_record, const std::string& op, Live* live = nullptr) {
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

void commit(Record& rec, at::Generator& named, const std::string& op, Live* live = nullptr) {
  rec.state = mark(named, live);
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

// A draw of `words` words with `gen`: run(key, offset) writes the values
// (it may throw before writing), then the position advances and the torch
// generator is marked.
template <class Run>
void take(const std::optional<at::Generator>& gen, uint64_t words, const std::string& op, Run&& run) {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  at::Generator named;
  bool is_new = false;
  Record& rec = record_of(gen, named, is_new);
  std::lock_guard<std::mutex> glock(named.mutex());
  Live live;
  Pos& pos = resolve(rec, named, is_new, op, &live);
  if (words > std::numeric_limits<uint64_t>::max() - pos.offset)
    throw Error(op + ": the stream would pass word 2^64 (" + std::to_string(words) + " words at offset " +
                std::to_string(pos.offset) + ")");
  run(pos.key, pos.offset);
  pos.offset += words;
  commit(rec, named, op, &live);
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

// ==== 2. the table of operators ======================================================================
enum class Form {
  fill,             // in-place fill of self (arg 0) with an element draw; params: args 1..
  random,           // random_ (its three overloads)
  bernoulli_tensor, // bernoulli_.Tensor(self, p) and bernoulli.out(p, out)
  randperm_out,     // randperm.generator_out(n, generator, out)
  multinomial,      // multinomial(self, n, replacement) and .out
  normal_tensor,    // normal.Tensor_Tensor / Tensor_float / float_Tensor and their .out
  tensor_param,     // _standard_gamma, _sample_dirichlet, poisson, binomial
  native_dropout,   // native_dropout(input, p, train)
  rrelu,            // rrelu_with_noise(self, noise, lower, upper, training) and its _ and .out forms
  sdp_choice,       // _fused_sdp_choice: the math formulation when dropout_p > 0 (its dropout is aten's)
};

struct OpRow {
  const char* name;      // "aten::" name
  const char* overload;
  Form form;
  Dist dist;             // fill: the xrng draw
  const char* xop;       // tensor_param: the xrng operator
  const char* draw;      // documentation (mode_ops)
  const char* words;
};

// One row per aten operator the mode serves (SPEC.md section 8.2 gives the
// words of each). Every other random operator of torch reaches one of these
// (randn, rand, randint, the *_like factories, dropout, nn.init's fills,
// torch.distributions' samplers) or is reported by the dispatch check.
constexpr OpRow kModeOps[] = {
    {"normal_", "", Form::fill, Dist::normal, nullptr, "normal(mean, std)", "as xrng normal"},
    {"uniform_", "", Form::fill, Dist::uniform, nullptr, "uniform on [from, to)", "as xrng uniform; from == to: 0"},
    {"exponential_", "", Form::fill, Dist::exponential, nullptr, "exponential(lambd)", "as xrng exponential"},
    {"geometric_", "", Form::fill, Dist::geometric, nullptr, "geometric(p)", "as xrng geometric"},
    {"log_normal_", "", Form::fill, Dist::log_normal, nullptr, "log_normal(mean, std)", "as xrng log_normal"},
    {"cauchy_", "", Form::fill, Dist::cauchy, nullptr, "cauchy(median, sigma)", "as xrng cauchy"},
    {"bernoulli_", "float", Form::fill, Dist::bernoulli, nullptr, "bernoulli(p)", "n"},
    {"bernoulli_", "Tensor", Form::bernoulli_tensor, Dist::bits, nullptr, "1 where word < round(p_i 2^32)", "n"},
    {"bernoulli", "out", Form::bernoulli_tensor, Dist::bits, nullptr, "1 where word < round(p_i 2^32)", "n"},
    {"random_", "", Form::random, Dist::randint, nullptr, "randint on [0, max]", "2n or 4n"},
    {"random_", "to", Form::random, Dist::randint, nullptr, "randint on [0, to)", "2n or 4n"},
    {"random_", "from", Form::random, Dist::randint, nullptr, "randint on [from, to)", "2n or 4n"},
    {"randperm", "generator_out", Form::randperm_out, Dist::perm, nullptr, "perm of [0, n)", "12 (n = 0: 0)"},
    {"multinomial", "", Form::multinomial, Dist::bits, nullptr, "categorical (SPEC 10)",
     "2 rows num_samples (with replacement), 2 rows k (without)"},
    {"multinomial", "out", Form::multinomial, Dist::bits, nullptr, "categorical (SPEC 10)",
     "2 rows num_samples (with replacement), 2 rows k (without)"},
    {"normal", "Tensor_Tensor", Form::normal_tensor, Dist::normal, nullptr, "normal(0, 1), then * std + mean", "as xrng normal"},
    {"normal", "Tensor_Tensor_out", Form::normal_tensor, Dist::normal, nullptr, "normal(0, 1), then * std + mean", "as xrng normal"},
    {"normal", "Tensor_float", Form::normal_tensor, Dist::normal, nullptr, "normal(0, std), then + mean", "as xrng normal"},
    {"normal", "Tensor_float_out", Form::normal_tensor, Dist::normal, nullptr, "normal(0, std), then + mean", "as xrng normal"},
    {"normal", "float_Tensor", Form::normal_tensor, Dist::normal, nullptr, "normal(0, 1), then * std + mean", "as xrng normal"},
    {"normal", "float_Tensor_out", Form::normal_tensor, Dist::normal, nullptr, "normal(0, 1), then * std + mean", "as xrng normal"},
    {"_standard_gamma", "", Form::tensor_param, Dist::bits, "xrng::gamma", "gamma (SPEC 11)", "64 n"},
    {"_sample_dirichlet", "", Form::tensor_param, Dist::bits, "xrng::dirichlet", "Dirichlet (SPEC 11)", "64 n"},
    {"poisson", "", Form::tensor_param, Dist::bits, "xrng::poisson_counts", "Poisson (SPEC 12)", "64 n"},
    {"binomial", "", Form::tensor_param, Dist::bits, "xrng::binomial_counts", "binomial (SPEC 13)", "64 n"},
    {"rrelu_with_noise", "", Form::rrelu, Dist::uniform, nullptr,
     "slope uniform on [lower, upper) in the op's arithmetic type for every element, used where x <= 0",
     "as xrng uniform (f32 for f16/bf16)"},
    {"rrelu_with_noise_", "", Form::rrelu, Dist::uniform, nullptr,
     "slope uniform on [lower, upper) in the op's arithmetic type for every element, used where x <= 0",
     "as xrng uniform (f32 for f16/bf16)"},
    {"rrelu_with_noise", "out", Form::rrelu, Dist::uniform, nullptr,
     "slope uniform on [lower, upper) in the op's arithmetic type for every element, used where x <= 0",
     "as xrng uniform (f32 for f16/bf16)"},
    {"_fused_sdp_choice", "", Form::sdp_choice, Dist::bits, nullptr,
     "scaled_dot_product_attention with dropout_p > 0 runs its math formulation (dropout: as above), not a fused "
     "kernel with an RNG of its own", "those of its dropout"},
    {"native_dropout", "", Form::native_dropout, Dist::bernoulli, nullptr,
     "keep = bernoulli(1 - p); input * (keep * (1 / (1 - p) in the dtype))", "n"},
};
constexpr size_t kRows = sizeof(kModeOps) / sizeof(kModeOps[0]);

std::string op_name(const OpRow& r) {
  return std::string("aten::") + r.name + (r.overload[0] ? std::string(".") + r.overload : std::string());
}

constexpr c10::DispatchKey kKeys[] = {c10::DispatchKey::CPU, c10::DispatchKey::CUDA, c10::DispatchKey::PrivateUse1};
constexpr size_t kNumKeys = sizeof(kKeys) / sizeof(kKeys[0]);

// torch's own kernels, kept at installation: [row][key]
std::vector<std::array<std::optional<c10::SafeKernelFunction>, kNumKeys>>& g_torch =
    *new std::vector<std::array<std::optional<c10::SafeKernelFunction>, kNumKeys>>;

struct Reported : std::exception {
  std::string why;
  explicit Reported(std::string w) : why(std::move(w)) {}
};
// A call with nothing to draw (dropout in eval mode, rrelu without training):
// torch's own kernel runs, nothing is reported.
struct NoDraw : std::exception {};

std::optional<at::Generator> generator_arg(const c10::IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toGenerator();
}

// Which argument holds the generator (the schema's "generator").
int generator_index(const c10::FunctionSchema& s) {
  const auto& a = s.arguments();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name() == "generator") return static_cast<int>(i);
  return -1;
}

bool is_float(at::ScalarType t) {
  return t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16;
}

// A DTensor shard's draw (the mode's DTensor RNG tracker, python/xrng/_dispatch.py):
// while set on this thread, a fill of a tensor of the shard's local shape is
// the block [start, start + local) of the draw over the global shape, and
// takes the words of the global draw, so every rank's shard is the
// unsharded tensor's block and all ranks' streams stay together.
struct BlockContext {
  bool active = false;
  std::vector<int64_t> global, start, local;
  std::optional<at::Generator> gen;  // the program's generator (DTensor hands it to its tracker)
};
thread_local BlockContext t_block;

bool in_block(const at::Tensor& t) {
  return t_block.active && t.sizes().vec() == t_block.local;
}

// Fills `t` (any strides, any device) with `numel` elements of the draw.
void fill_draw(at::Tensor& t, Dist d, const DrawParams& q, const std::optional<at::Generator>& gen,
               const std::string& op) {
  if (t.numel() == 0 && !in_block(t)) return;  // (a rank's empty shard still moves with the others)
  const Plan plan = make_plan(d, draw_dtype(d, t.scalar_type()), q, config().stream);
  if (in_block(t)) {
    uint64_t global = 1;
    for (int64_t g : t_block.global) global *= static_cast<uint64_t>(g);
    std::vector<double> reals;
    std::vector<int64_t> ints;
    split_params(d, q, reals, ints);
    static auto block = c10::Dispatcher::singleton()
                            .findSchemaOrThrow("xrng::draw_block_", "")
                            .typed<void(at::Tensor&, c10::string_view, c10::ArrayRef<double>,
                                               c10::ArrayRef<int64_t>, const at::Tensor&, c10::ArrayRef<int64_t>,
                                               c10::ArrayRef<int64_t>)>();
    take(t_block.gen ? t_block.gen : gen, plan_words(plan, global), op, [&](const Key& key, uint64_t offset) {
      if (t.numel() == 0) return;
      block.call(t, dist_name(d), reals, ints, position_tensor(key, offset, config().stream), t_block.global,
                 t_block.start);
    });
    return;
  }
  take(gen, plan_words(plan, static_cast<uint64_t>(t.numel())), op,
       [&](const Key& key, uint64_t offset) { fill_(t, plan, key, offset); });
}

// A location/scale draw into f16/bf16 whose parameters are not finite in
// that type: by definition the binary32 value rounded, so drawn in float32
// (torch gives infinities there; xrng's bits everywhere else).
void fill_located(at::Tensor& t, Dist d, const DrawParams& q, const std::optional<at::Generator>& gen,
                  const std::string& op) {
  try {
    fill_draw(t, d, q, gen, op);
  } catch (const Error& e) {
    if ((t.scalar_type() != at::kHalf && t.scalar_type() != at::kBFloat16) ||
        std::string(e.what()).find("is not finite in") == std::string::npos)
      throw;
    at::Tensor wide = at::empty(t.sizes(), t.options().dtype(at::kFloat));
    fill_draw(wide, d, q, gen, op);
    t.copy_(wide);
  }
}

// Bernoulli(p) into any dtype: 1 where word < round_half_even(p 2^32).
void fill_bernoulli(at::Tensor& t, double p, const std::optional<at::Generator>& gen, const std::string& op) {
  DrawParams q;
  q.p = p;
  if (t.scalar_type() == at::kBool || t.scalar_type() == at::kByte) {
    fill_draw(t, Dist::bernoulli, q, gen, op);
  } else {
    at::Tensor tmp = at::empty(t.sizes(), t.options().dtype(at::kByte));
    fill_draw(tmp, Dist::bernoulli, q, gen, op);
    t.copy_(tmp);
  }
}

// Per-element Bernoulli(p_i): one word per element, 1 where w_i < round_half_even(p_i 2^32)
// (exact in binary64 on every device). p is broadcast to `shape`.
at::Tensor bernoulli_mask(at::IntArrayRef shape, const at::Tensor& p, const std::optional<at::Generator>& gen,
                          const std::string& op) {
  if (!is_float(p.scalar_type())) throw Reported("probabilities of dtype " + std::string(c10::toString(p.scalar_type())));
  const at::Tensor p64 = p.to(at::kDouble);
  if (p64.numel() && ((p64 < 0) | (p64 > 1) | p64.isnan()).any().item<bool>())
    throw Error(op + ": the probabilities must be in [0, 1]");
  at::Tensor w = at::empty(shape, p.options().dtype(at::kUInt32));
  fill_draw(w, Dist::bits, DrawParams{}, gen, op);
  const at::Tensor words = w.view(at::kInt).to(at::kLong).bitwise_and_(0xFFFFFFFFll).to(at::kDouble);
  return words < at::round(p64.expand(shape) * 4294967296.0);
}

// randint on [low, high) into any real dtype (SPEC 8.2): an i64 draw for
// 64-bit and float64 outputs, i32 otherwise; the top of int64's range and
// the whole of it have their own forms.
void fill_randint(at::Tensor& t, __int128 low, __int128 high, const std::optional<at::Generator>& gen,
                  const std::string& op) {
  if (t.numel() == 0 && !in_block(t)) return;
  const at::ScalarType st = t.scalar_type();
  const bool wide = st == at::kLong || st == at::kDouble || st == at::kUInt64 || st == at::kUInt32;
  if (high - low == (static_cast<__int128>(1) << 64)) {  // every 64-bit pattern: raw words
    at::Tensor u = at::empty(t.sizes(), t.options().dtype(at::kUInt64));
    fill_draw(u, Dist::bits, DrawParams{}, gen, op);
    t.copy_(st == at::kUInt64 ? u : u.view(at::kLong));
    return;
  }
  int64_t shift = 0;
  const __int128 top = static_cast<__int128>(1) << 63;
  if (high == top) {  // 2^63 is not an exclusive int64 bound: [low - 1, 2^63 - 1), plus one
    low -= 1;
    high -= 1;
    shift = 1;
  }
  if (low < -top || high > top - 1) throw Reported("a range beyond int64");
  DrawParams q;
  q.ilow = static_cast<int64_t>(low);
  q.ihigh = static_cast<int64_t>(high);
  const bool direct = shift == 0 && (st == at::kLong || st == at::kInt || st == at::kShort || st == at::kChar ||
                                     st == at::kByte);
  if (direct && (wide || (low >= INT32_MIN && high - 1 <= INT32_MAX))) {
    if (!wide) {  // an i32 draw converted (the range fits int32: draw_dtype's rule)
      at::Tensor tmp = at::empty(t.sizes(), t.options().dtype(at::kInt));
      fill_draw(tmp, Dist::randint, q, gen, op);
      t.copy_(tmp);
    } else {
      fill_draw(t, Dist::randint, q, gen, op);
    }
    return;
  }
  at::Tensor tmp = at::empty(t.sizes(), t.options().dtype(wide ? at::kLong : at::kInt));
  fill_draw(tmp, Dist::randint, q, gen, op);
  t.copy_(shift ? tmp + 1 : tmp);
}

// torch's adjustment of a random_ range to a floating dtype (DistributionTemplates.h
// update_from / update_to): `from` up to the next value the dtype holds,
// `to` down so that to - 1 rounds below it. The integers drawn are then
// converted (nearest), so no value reaches the exclusive bound.
template <typename T>
int64_t update_from(int64_t from) {
  const auto from_plus_1 = static_cast<int64_t>(static_cast<T>(from + 1));
  if (from_plus_1 < from) {
    int64_t f = std::abs(from + 1);
    int n = 0;
    while (f >>= 1) ++n;
    from = from_plus_1 + (int64_t{1} << (n - std::numeric_limits<T>::digits + 1));
  }
  return from;
}
template <typename T>
int64_t update_to(int64_t to) {
  const auto to_minus_1 = static_cast<int64_t>(static_cast<T>(to - 1));
  if (to_minus_1 >= to) {
    int64_t t = std::abs(to - 1);
    int n = 0;
    while (t >>= 1) ++n;
    to = to_minus_1 - (int64_t{1} << (n - std::numeric_limits<T>::digits + 1));
  }
  return to;
}
template <class F>
void with_float_type(at::ScalarType st, F&& f) {
  switch (st) {
    case at::kFloat: f(float{}); break;
    case at::kDouble: f(double{}); break;
    case at::kHalf: f(c10::Half{}); break;
    case at::kBFloat16: f(c10::BFloat16{}); break;
    default: break;
  }
}

__int128 dtype_max(at::ScalarType st) {
  switch (st) {
    case at::kFloat: return static_cast<__int128>(1) << 24;
    case at::kDouble: return static_cast<__int128>(1) << 53;
    case at::kHalf: return static_cast<__int128>(1) << 11;
    case at::kBFloat16: return static_cast<__int128>(1) << 8;
    case at::kBool: return 1;
    case at::kByte: return 255;
    case at::kChar: return 127;
    case at::kShort: return 32767;
    case at::kInt: return INT32_MAX;
    case at::kLong: return INT64_MAX;
    case at::kUInt16: return 65535;
    case at::kUInt32: return UINT32_MAX;
    case at::kUInt64: return static_cast<__int128>(UINT64_MAX);
    default: throw Reported("random_ into dtype " + std::string(c10::toString(st)));
  }
}

// ---- the kernel ------------------------------------------------------------------------------------
// The scalar arguments of a call (bit patterns), with its dtype: what torch's
// argument checks of a fill depend on.
struct CheckKey {
  at::ScalarType dtype = at::kFloat;
  std::array<uint64_t, 6> scalars{};
  bool operator==(const CheckKey& o) const { return dtype == o.dtype && scalars == o.scalars; }
};

class Kernel final : public c10::OperatorKernel {
 public:
  Kernel(size_t row, size_t key, const c10::FunctionSchema& schema)
      : row_(row), key_(key), nargs_(schema.arguments().size()), gi_(generator_index(schema)),
        name_(new std::string(std::string("aten.") + kModeOps[row].name +
              (kModeOps[row].overload[0] ? std::string(".") + kModeOps[row].overload : ""))) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet ks, Stack* stack) {
    {
      std::lock_guard<std::recursive_mutex> lock(g_lock);
      if (g_entries.empty()) {  // another thread is removing the kernels: torch's own
        torch_kernel(op, ks, stack);
        return;
      }
    }
    if (std::this_thread::get_id() != g_owner && torch::autograd::get_current_graph_task_id() == -1) {
      foreign_call(op, ks, stack);
      return;
    }
    const size_t n = nargs_;
    auto args = torch::jit::last(*stack, n);
    const std::optional<at::Generator> gen = gi_ >= 0 ? generator_arg(args[gi_]) : std::nullopt;
    const std::string& name = *name_;
    try {
      std::vector<c10::IValue> out = run(op, ks, args, gen, name);
      torch::jit::drop(*stack, n);
      for (auto& v : out) torch::jit::push(*stack, std::move(v));
    } catch (const NoDraw&) {
      settle(gen, name);
      torch_kernel(op, ks, stack);
      absorb(gen);  // (torch's MKL bernoulli_ takes a seed even for no elements)
    } catch (const Reported& e) {  // drawn by torch, reported
      report(name, "is not drawn from xrng here (" + e.why + ")");
      settle(gen, name);
      torch_kernel(op, ks, stack);
      absorb(gen);
    } catch (const c10::ValueError& e) {  // an xrng operator refused them (its errors are ValueErrors)
      settle(gen, name);
      torch_kernel(op, ks, stack);
      absorb(gen);
      report(name, std::string("is not drawn from xrng here (") + e.what_without_backtrace() + ")");
    } catch (const Error& e) {  // xrng refused the arguments: torch decides
      const std::string why = std::string("is not drawn from xrng here (") + e.what() + ")";
      const Form f = kModeOps[row_].form;
      if (f == Form::fill || f == Form::random) {
        report(name, why);  // torch's checks passed already: reported (strict: raised) before anything is written
        settle(gen, name);
        torch_kernel(op, ks, stack);
        absorb(gen);
      } else {
        settle(gen, name);
        torch_kernel(op, ks, stack);  // raises where torch raises
        absorb(gen);
        report(name, why);
      }
    }
  }

 private:
  // A call of a thread without the mode: torch's own kernel draws it, warned
  // (never raised: the thread has no mode); a draw from the default generator
  // is reported at the mode's next draw.
  void foreign_call(const c10::OperatorHandle& op, c10::DispatchKeySet ks, Stack* stack) const {
    const std::optional<at::Generator> gen =
        gi_ >= 0 ? generator_arg(torch::jit::last(*stack, nargs_)[gi_]) : std::nullopt;
    const bool global = !gen.has_value() || !gen->defined() || gen->unsafeGetGeneratorImpl() == default_impl();
    torch_kernel(op, ks, stack);
    ReportFn warn;
    {
      std::lock_guard<std::recursive_mutex> lock(g_lock);
      if (g_entries.empty()) return;
      if (global && g_foreign.find(*name_) == std::string::npos)
        g_foreign += (g_foreign.empty() ? "" : ", ") + *name_;
      warn = config().report;
    }
    if (warn) warn(*name_, "was called by a thread with no mode: torch's own kernel drew it");  // (without g_lock)
  }

  void torch_kernel(const c10::OperatorHandle& op, c10::DispatchKeySet ks, Stack* stack) const {
    const auto& k = g_torch[row_][key_];
    TORCH_CHECK(k.has_value(), "xrng.reproducible: ", op.schema().name(), " has no kernel of torch's for ",
                c10::toString(kKeys[key_]));
    k->callBoxed(op, ks, stack);
  }

  // torch's argument checks: its own kernel on one-element stand-ins of the
  // call's tensors (some of torch's kernels return before their dtype checks
  // when there are no elements) and a throwaway generator, once per set of
  // dtypes and scalar arguments (errors are raised every time). `n0`: the
  // argument that is an element count (randperm's n), made 0.
  void torch_checks(const c10::OperatorHandle& op, c10::DispatchKeySet ks, c10::ArrayRef<c10::IValue> args,
                    int n0 = -1) const {
    CheckKey ck;
    size_t j = 0;
    for (size_t i = 0; i < args.size() && j < ck.scalars.size(); ++i) {
      const auto& a = args[i];
      if (a.isTensor()) {
        ck.scalars[j++] = 0x7000 + static_cast<uint64_t>(a.toTensor().scalar_type());
      } else if (static_cast<int>(i) == n0 || a.isGenerator()) {
        continue;
      } else if (a.isDouble()) {
        ck.scalars[j++] = c10::bit_cast<uint64_t>(a.toDouble());
      } else if (a.isInt()) {
        ck.scalars[j++] = static_cast<uint64_t>(a.toInt());
      } else if (a.isBool()) {
        ck.scalars[j++] = a.toBool() ? 1 : 0;
      } else if (a.isScalar()) {
        ck.scalars[j++] = c10::bit_cast<uint64_t>(a.toScalar().to<double>());
      } else {
        ck.scalars[j++] = ~uint64_t{0} - static_cast<uint64_t>(a.isNone());
      }
    }
    {
      std::lock_guard<std::mutex> lock(checked_lock_);
      for (const CheckKey& k : checked_)
        if (k == ck) return;
    }
    if (!g_torch[row_][key_].has_value()) return;  // a backend without torch kernels: xrng's checks alone
    c10::Device device = c10::kCPU;
    for (const auto& a : args)
      if (a.isTensor()) {
        device = a.toTensor().device();
        break;
      }
    at::Generator scratch;
    try {
      scratch = gi_ >= 0 && !args[gi_].isNone() ? args[gi_].toGenerator().clone()
                                                : at::globalContext().defaultGenerator(device).clone();
    } catch (const c10::Error&) {  // a device without generators: its kernel cannot draw either
      return;
    }
    Stack s;
    for (size_t i = 0; i < args.size(); ++i) {
      const auto& a = args[i];
      if (static_cast<int>(i) == gi_) s.push_back(scratch);
      else if (static_cast<int>(i) == n0) s.push_back(int64_t{0});
      else if (a.isTensor()) s.push_back(at::empty({n0 >= 0 ? 0 : 1}, a.toTensor().options()));
      else s.push_back(a);
    }
    // torch's warnings are passed on; a check that warned is not kept, so the
    // next identical call warns too, as torch's own does
    struct Seen : c10::WarningHandler {
      c10::WarningHandler* next = c10::WarningUtils::get_warning_handler();
      bool any = false;
      void process(const c10::Warning& w) override {
        any = true;
        next->process(w);
      }
    } seen;
    {
      c10::WarningUtils::WarningHandlerGuard guard(&seen);
      torch_kernel(op, ks, &s);  // raises where torch raises
    }
    if (seen.any) return;
    std::lock_guard<std::mutex> lock(checked_lock_);
    if (checked_.size() < 64) checked_.push_back(ck);  // a program's few distinct calls
  }

  std::vector<c10::IValue> run(const c10::OperatorHandle& op, c10::DispatchKeySet ks,
                               c10::ArrayRef<c10::IValue> args, const std::optional<at::Generator>& gen,
                               const std::string& name) {
    const OpRow& r = kModeOps[row_];
    switch (r.form) {
      case Form::fill: {
        at::Tensor self = args[0].toTensor();
        if (self.numel() == 0 && !in_block(self)) throw NoDraw();  // torch's rules for no elements (it checks less)
        torch_checks(op, ks, args);
        at::Tensor t = self.is_complex() ? at::view_as_real(self) : self;
        DrawParams q;
        switch (r.dist) {
          case Dist::normal:
            q.mean = args[1].toDouble();
            q.std = args[2].toDouble() / (self.is_complex() ? std::sqrt(2.0) : 1.0);
            fill_located(t, r.dist, q, gen, name);
            break;
          case Dist::uniform:
            q.low = args[1].toDouble();
            q.high = args[2].toDouble();
            if (q.low == q.high) {
              t.fill_(q.low);
              break;
            }
            fill_draw(t, r.dist, q, gen, name);
            break;
          case Dist::exponential:
            q.rate = args[1].toDouble();
            fill_draw(t, r.dist, q, gen, name);
            break;
          case Dist::geometric:
            q.p = args[1].toDouble();
            fill_draw(t, r.dist, q, gen, name);
            break;
          case Dist::log_normal:
            q.mean = args[1].toDouble();
            q.std = args[2].toDouble();
            fill_located(t, r.dist, q, gen, name);
            break;
          case Dist::cauchy:
            q.median = args[1].toDouble();
            q.sigma = args[2].toDouble();
            fill_located(t, r.dist, q, gen, name);
            break;
          case Dist::bernoulli:
            fill_bernoulli(t, args[1].toDouble(), gen, name);
            break;
          default:
            throw Reported("no fill of this draw");
        }
        return {self};
      }
      case Form::random: {
        at::Tensor self = args[0].toTensor();
        if (self.numel() == 0 && !in_block(self)) throw NoDraw();
        torch_checks(op, ks, args);
        __int128 low = 0, high = 0;
        const std::string ov = r.overload;
        if (ov.empty()) {
          high = dtype_max(self.scalar_type()) + 1;
        } else if (ov == "to") {
          high = args[1].toInt();
        } else {
          low = args[1].toInt();
          high = args[2].isNone() ? dtype_max(self.scalar_type()) + 1 : static_cast<__int128>(args[2].toInt());
        }
        if (self.is_complex()) throw Reported("random_ into a complex dtype");
        dtype_max(self.scalar_type());  // the dtypes xrng draws
        if (is_float(self.scalar_type()) && !ov.empty()) {  // torch's checks passed: the range fits int64
          with_float_type(self.scalar_type(), [&](auto v) {
            using T = decltype(v);
            const bool to_given = ov == "to" || !args[2].isNone();
            int64_t f = static_cast<int64_t>(low), t = static_cast<int64_t>(high - (to_given ? 0 : 1));
            f = update_from<T>(f);
            if (to_given) t = update_to<T>(t);
            low = f;
            high = static_cast<__int128>(t) + (to_given ? 0 : 1);
          });
        }
        fill_randint(self, low, high, gen, name);
        return {self};
      }
      case Form::bernoulli_tensor: {
        // bernoulli_.Tensor(self, p): self is the output; bernoulli.out(self = p, out)
        const bool out_form = std::string(r.overload) == "out";
        at::Tensor out = out_form ? args[args.size() - 1].toTensor() : args[0].toTensor();
        const at::Tensor p = out_form ? args[0].toTensor() : args[1].toTensor();
        if (out_form) at::native::resize_output(out, p.sizes());
        if (out.numel() == 0) return {out};
        if (!out_form) (void)at::infer_size(out.sizes(), p.sizes());  // torch's broadcast error
        out.copy_(bernoulli_mask(out.sizes(), p, gen, name));
        return {out};
      }
      case Form::randperm_out: {
        const int64_t nn = args[0].toInt();
        at::Tensor out = args[2].toTensor();
        if (nn <= 0) throw NoDraw();
        torch_checks(op, ks, args, /*n0=*/0);  // the dtypes torch's kernel has
        const at::ScalarType st = out.scalar_type();
        if (nn > 0 && st != at::kLong && st != at::kInt && st != at::kUInt64) {
          TORCH_CHECK(!is_float(st) || static_cast<__int128>(nn - 1) <= dtype_max(st),
                      "n is too large for result tensor type: '", out.toString(), "'");
          if (!is_float(st)) TORCH_CHECK(static_cast<__int128>(nn - 1) <= dtype_max(st),
                                         "n is too large for result tensor type: '", out.toString(), "'");
        }
        if (st == at::kInt) TORCH_CHECK(nn - 1 <= INT32_MAX, "n is too large for result tensor type: '", out.toString(), "'");
        at::native::resize_output(out, {nn});
        if (nn == 0) return {out};
        DrawParams q;
        q.n = static_cast<uint64_t>(nn);
        if (st == at::kLong || st == at::kInt || st == at::kUInt64) {
          fill_draw(out, Dist::perm, q, gen, name);
        } else {
          at::Tensor tmp = at::empty({nn}, out.options().dtype(at::kLong));
          fill_draw(tmp, Dist::perm, q, gen, name);
          out.copy_(tmp);
        }
        return {out};
      }
      case Form::multinomial: {
        const at::Tensor w = args[0].toTensor();
        const int64_t ns = args[1].toInt();
        const bool repl = args[2].toBool();
        if (!is_float(w.scalar_type()) || (w.dim() != 1 && w.dim() != 2)) throw Error("multinomial: these arguments");
        const int64_t rows = w.dim() == 1 ? 1 : w.size(0);
        const int64_t k = w.size(-1);
        if (ns <= 0 || (!repl && ns > k)) throw Error("multinomial: num_samples");
        const auto& info = tensor_draw_info(repl ? TensorDraw::multinomial_replacement : TensorDraw::multinomial);
        const uint64_t words = static_cast<uint64_t>(info.words) * static_cast<uint64_t>(rows) *
                               static_cast<uint64_t>(repl ? ns : k);
        at::Tensor res;
        static auto cat = c10::Dispatcher::singleton()
                              .findSchemaOrThrow("xrng::categorical", "")
                              .typed<at::Tensor(const at::Tensor&, int64_t, bool, const at::Tensor&)>();
        take(gen, words, name, [&](const Key& key, uint64_t offset) {
          res = cat.call(w, ns, repl, position_tensor(key, offset, config().stream));
        });
        if (std::string(r.overload) == "out") {
          at::Tensor out = args[args.size() - 1].toTensor();
          at::native::resize_output(out, res.sizes());
          out.copy_(res);
          return {out};
        }
        return {res};
      }
      case Form::normal_tensor: {
        const std::string ov = r.overload;
        const bool out_form = ov.size() > 4 && ov.compare(ov.size() - 4, 4, "_out") == 0;
        const std::string form = out_form ? ov.substr(0, ov.size() - 4) : ov;
        at::Tensor out;
        if (form == "Tensor_Tensor") {
          const at::Tensor mean = args[0].toTensor(), std = args[1].toTensor();
          TORCH_CHECK(!std.is_complex(), "normal expects standard deviation to be non-complex");
          TORCH_CHECK(std.numel() == 0 || std.min().ge(0).item<bool>(), "normal expects all elements of std >= 0.0");
          out = out_form ? args[3].toTensor() : at::empty({0}, mean.options());
          at::native::resize_output(out, at::infer_size(mean.sizes(), std.sizes()));
          DrawParams q;
          fill_located(out, Dist::normal, q, gen, name);
          out.mul_(std).add_(mean);
        } else if (form == "Tensor_float") {
          const at::Tensor mean = args[0].toTensor();
          const double std = args[1].toDouble();
          TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
          out = out_form ? args[3].toTensor() : at::empty_like(mean, at::MemoryFormat::Contiguous);
          at::native::resize_output(out, mean.sizes());
          DrawParams q;
          q.std = std;
          fill_located(out, Dist::normal, q, gen, name);
          out.add_(mean);
        } else {  // float_Tensor
          const double mean = args[0].toDouble();
          const at::Tensor std = args[1].toTensor();
          TORCH_CHECK(!std.is_complex(), "normal expects standard deviation to be non-complex");
          TORCH_CHECK(std.numel() == 0 || std.min().ge(0).item<bool>(), "normal expects all elements of std >= 0.0");
          out = out_form ? args[3].toTensor() : at::empty_like(std, at::MemoryFormat::Contiguous);
          at::native::resize_output(out, std.sizes());
          DrawParams q;
          fill_located(out, Dist::normal, q, gen, name);
          out.mul_(std).add_(mean);
        }
        return {out};
      }
      case Form::tensor_param: {
        const bool binomial = std::string(r.name) == "binomial";
        const at::Tensor x = args[0].toTensor();
        if (!is_float(x.scalar_type())) throw Error(name + ": dtype");
        if (binomial && !is_float(args[1].toTensor().scalar_type())) throw Error(name + ": dtype");
        const uint64_t per = tensor_draw_info(TensorDraw::gamma).words;
        const uint64_t words = per * static_cast<uint64_t>(x.numel());
        at::Tensor res;
        auto h = c10::Dispatcher::singleton().findSchemaOrThrow(r.xop, "");
        take(gen, words, name, [&](const Key& key, uint64_t offset) {
          const at::Tensor pos = position_tensor(key, offset, config().stream);
          if (binomial)
            res = h.typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>().call(
                x, args[1].toTensor(), pos);
          else
            res = h.typed<at::Tensor(const at::Tensor&, const at::Tensor&)>().call(x, pos);
        });
        return {res};
      }
      case Form::native_dropout: {
        const at::Tensor in = args[0].toTensor();
        const double p = args[1].toDouble();
        const bool train = args[2].isNone() || args[2].toBool();
        if (!train || p <= 0 || p >= 1 || (in.numel() == 0 && !in_block(in)) || !is_float(in.scalar_type()))
          throw NoDraw();  // torch's kernel: all kept or all dropped, or its own dtype error
        // (a rank's empty DTensor shard takes the global draw's words with the
        // others, and its mask is bool like theirs)
        at::Tensor keep = at::empty(in.sizes(), in.options().dtype(at::kBool));
        fill_bernoulli(keep, 1.0 - p, gen, name);
        // the value of a kept element: 1 / (1 - p) in the dtype, as the CPU's
        // composite dropout computes it (noise.div_(1 - p))
        const double v = at::ones({}, at::TensorOptions().dtype(in.scalar_type())).div_(1.0 - p).item<double>();
        at::Tensor noise = keep.to(in.scalar_type()).mul_(v);
        return {in * noise, keep};
      }
      case Form::sdp_choice: {
        if (!(args[4].toDouble() > 0)) throw NoDraw();  // torch's choice
        return {c10::IValue(int64_t{0})};                // sdp::SDPBackend::math
      }
      case Form::rrelu: {
        // torch's CPU kernel: where x <= 0, r = uniform(lower, upper) in the
        // arithmetic type (float for f16/bf16), output = x * r, noise = r;
        // elsewhere noise = 1, output = x. xrng draws r for every element
        // (a fixed number of words) and keeps that arithmetic.
        const at::Tensor self = args[0].toTensor();
        at::Tensor noise = args[1].toTensor();
        const double lower = args[2].toScalar().to<double>(), upper = args[3].toScalar().to<double>();
        const bool training = args[4].toBool();
        if (!training || !is_float(self.scalar_type()) || self.numel() == 0) throw NoDraw();
        torch_checks(op, ks, args);  // the dtypes torch's kernel has
        TORCH_CHECK(self.sizes() == noise.sizes(), "noise tensor shape must match self tensor shape. Got self.shape = ",
                    self.sizes(), " noise.shape = ", noise.sizes());
        const std::string ov = r.overload;
        const bool inplace = std::string(r.name) == "rrelu_with_noise_";
        at::Tensor out = ov == "out" ? args[args.size() - 1].toTensor() : at::Tensor();
        const at::ScalarType math = self.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
        at::Tensor slope = at::empty(self.sizes(), self.options().dtype(math));
        if (self.numel()) {
          if (!(lower <= upper)) throw Error(name + ": lower > upper");
          DrawParams q;
          q.low = lower;
          q.high = upper;
          if (lower == upper) slope.fill_(lower);
          else fill_draw(slope, Dist::uniform, q, gen, name);
        }
        const at::Tensor neg = self <= 0;
        const at::Tensor res = at::where(neg, (self.to(math) * slope).to(self.scalar_type()), self);
        noise.copy_(at::where(neg, slope, at::ones({}, slope.options())));
        if (inplace) {
          at::Tensor s = args[0].toTensor();
          s.copy_(res);
          return {s};
        }
        if (ov == "out") {
          at::native::resize_output(out, self.sizes());
          out.copy_(res);
          return {out};
        }
        return {res};
      }
    }
    throw Reported("no form");
  }

  size_t row_, key_, nargs_;
  int gi_;
  mutable std::mutex checked_lock_;
  mutable std::vector<CheckKey> checked_;  // calls whose torch checks passed (errors are never kept)
  // the reported name, "aten.op.overload"; never freed (g_last_op may point to it)
  const std::string* name_;
};

// ==== 3. installation ==================================================================================
std::vector<std::unique_ptr<torch::Library>>& g_libs = *new std::vector<std::unique_ptr<torch::Library>>;

struct Silent : c10::WarningHandler {
  void process(const c10::Warning&) override {}
};

void install() {
  Silent silent;
  c10::WarningUtils::WarningHandlerGuard guard(&silent);  // torch warns of every kernel overridden
  auto& d = c10::Dispatcher::singleton();
  g_torch.assign(kRows, {});
  for (size_t k = 0; k < kNumKeys; ++k) {
    auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", kKeys[k], __FILE__, __LINE__);
    for (size_t i = 0; i < kRows; ++i) {
      const OpRow& r = kModeOps[i];
      auto h = d.findSchemaOrThrow((std::string("aten::") + r.name).c_str(), r.overload);
      if (h.hasKernelForDispatchKey(kKeys[k])) g_torch[i][k] = h.getComputedKernelForDispatchKey(kKeys[k]);
      else if (r.form == Form::sdp_choice) continue;  // a choice only where torch makes one
      const std::string nm = std::string(r.name) + (r.overload[0] ? std::string(".") + r.overload : "");
      lib->impl(nm.c_str(), torch::CppFunction::makeFromBoxedFunctor(std::make_unique<Kernel>(i, k, h.schema())));
    }
    g_libs.push_back(std::move(lib));
  }
}

void uninstall() {
  Silent silent;
  c10::WarningUtils::WarningHandlerGuard guard(&silent);
  g_libs.clear();
  g_torch.clear();
}

}  // namespace

void begin(const Config& cfg) {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  Entry e;
  e.config = cfg;
  e.id = ++g_entry_ids;
  if (!g_entries.empty()) e.saved = g_global.pos;
  const bool first = g_entries.empty();
  if (first)  // the records of generators that no longer exist
    for (auto it = g_records.begin(); it != g_records.end();)
      it = it->second.owner.expired() ? g_records.erase(it) : std::next(it);
  g_entries.push_back(e);
  if (first) {
    g_owner = std::this_thread::get_id();
    g_foreign.clear();
  }
  try {
    if (first) install();
    g_global.global = true;
    g_global.pos = Pos{key_of(cfg.seed, cfg.tag), 0};
    at::Generator g = default_cpu();
    std::lock_guard<std::mutex> glock(g.mutex());
    commit(g_global, g, kStart);
  } catch (...) {
    g_entries.pop_back();
    if (first) uninstall();
    throw;
  }
}

void end(bool check) {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  TORCH_CHECK(!g_entries.empty(), "xrng.reproducible: no active entry");
  struct Pop {
    ~Pop() {
      Entry e = g_entries.back();
      g_entries.pop_back();
      if (g_entries.empty()) {
        uninstall();
      } else if (e.saved) {  // the outer entry resumes where it was
        g_global.pos = *e.saved;
        at::Generator g = default_cpu();
        std::lock_guard<std::mutex> glock(g.mutex());
        commit(g_global, g, kInnerEnd);
      }
    }
  } pop;
  if (check && g_global.state.valid) {
    at::Generator g = default_cpu();
    TorchState st;
    {
      std::lock_guard<std::mutex> glock(g.mutex());
      st = read_state(g);
    }
    if (!(st == g_global.state) && !(st == fresh_state(g)) && !g_global.recorded(st.hash()))
      report("torch's default generator",
             (g_foreign.empty() ? std::string("was advanced by something the mode did not draw")
                                : "was drawn from by a thread without the mode (" + g_foreign + ")") +
                 ", between " + last_op() + " and the end of the mode");
  }
}

void block_begin(std::vector<int64_t> global, std::vector<int64_t> start, std::vector<int64_t> local,
                 std::optional<at::Generator> gen) {
  TORCH_CHECK(!t_block.active, "xrng.reproducible: DTensor regions do not nest");
  t_block = BlockContext{true, std::move(global), std::move(start), std::move(local), std::move(gen)};
}

void block_end() { t_block = BlockContext{}; }

bool active() {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  return !g_entries.empty();
}

std::vector<uint64_t> global_position() {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  return {g_global.pos.key.seed, g_global.pos.key.subseq, g_global.pos.offset,
          static_cast<uint64_t>(g_entries.empty() ? kStreamVersion : config().stream)};
}

std::vector<OpInfo> mode_ops() {
  std::vector<OpInfo> v;
  for (const OpRow& r : kModeOps) v.push_back({op_name(r).substr(6), r.draw, r.words});
  return v;
}

}  // namespace xrng::torch_api::mode
