// The reproducible mode's streams (part 1 of the dispatcher engine, see
// ../mode.cpp): which xrng position a draw with a torch generator starts at
// (re-seeds, restores and copies recognised by the generator's state). The
// mode's global state (g_lock, g_entries, g_global, g_records, ...) is
// defined once, in streams.cpp.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/intrusive_ptr.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../mode.h"
#include "../xrng_torch.h"

namespace xrng::torch_api::mode::detail {

// ==== 1. streams ===================================================================================
struct Pos {
  Key key;
  uint64_t offset = 0;
};

// A torch generator's state as the mode compares it. CPU generators: a
// digest of the mt19937 data (seed, position, and words 0-3, 311, 622, 623:
// word 0 carries the mark, so the digest of every state the mode recorded is
// unique, and torch's own draws move the position or, at a twist, every word)
// and the cached normals, read in place. Other generators: their serialised
// bytes (a Philox state is seed and offset).
struct TorchState {
  bool valid = false;
  bool cpu = false;
  std::array<uint64_t, 12> digest{};
  std::vector<uint8_t> bytes;  // non-CPU generators
  bool operator==(const TorchState& o) const {  // (the digest compared inline: no memcmp call)
    uint64_t d = 0;
    for (size_t i = 0; i < digest.size(); ++i) d |= digest[i] ^ o.digest[i];
    return d == 0 && valid == o.valid && cpu == o.cpu && bytes == o.bytes;
  }
  // A 64-bit hash of the state (the records' key; never stored outside the
  // process): the digest's words mixed in four independent lanes (three
  // words each, so the multiplications of the lanes overlap), then folded.
  uint64_t hash() const {
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
    uint64_t l[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x100000001b3ull, 0x2545F4914F6CDD1Dull};
    auto mix = [](uint64_t h, uint64_t v) {
      h = (h ^ v) * kMul;
      return h ^ (h >> 29);
    };
    static_assert(std::tuple_size_v<decltype(digest)> % 4 == 0, "whole rounds of the four lanes");
    for (size_t i = 0; i < digest.size(); i += 4)
      for (size_t j = 0; j < 4; ++j) l[j] = mix(l[j], digest[i + j]);
    for (uint8_t b : bytes) l[0] = mix(l[0], b);
    return mix(mix(mix(l[0], l[1]), l[2]), l[3]);
  }
};

const at::mt19937_data_pod& pod_of(const at::mt19937& e);
// A CPU generator's engine in place (its engine() and set_engine() copy the
// 2.5 KB engine each way): read for the state's digest and marked where it
// is, under the generator's mutex (streams.cpp).
at::mt19937_data_pod& pod_in_place(at::CPUGeneratorImpl* impl);
// Its cached second normals (next_float_normal_sample(), next_double_normal_sample()) in place.
std::optional<float>& float_normal_in_place(at::CPUGeneratorImpl* impl);
std::optional<double>& double_normal_in_place(at::CPUGeneratorImpl* impl);
TorchState digest_of(const at::mt19937_data_pod& pod, at::CPUGeneratorImpl* impl);

// The CPU generator a draw read its state from (its mutex held since), so
// that the mark does not look it up again.
struct Live {
  at::CPUGeneratorImpl* impl = nullptr;
};

TorchState read_state(const at::Generator& g, Live* live = nullptr);
// Marks the generator (see mode.h) and returns its new state (streams.cpp).
TorchState mark(at::Generator& g, Live* live = nullptr);
TorchState fresh_state(const at::Generator& g);

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

// The mode's state (streams.cpp): it lives as long as the process and is
// never destroyed (see the comment there).
extern std::recursive_mutex& g_lock;
extern std::vector<Entry>& g_entries;
// The active entries' torch stream (Config::torch: entries of different
// kinds do not nest), -1 with none: written under g_lock where g_entries
// gains its first or loses its last entry, read without it by the typed
// kernels (kernels.cpp), which need no more of the configuration.
extern std::atomic<int> g_stream_now;
// Its Config::release (the same in every nested entry), written before it.
extern std::atomic<int> g_release_now;
extern uint64_t g_entry_ids;
extern Record& g_global;
extern std::unordered_map<c10::GeneratorImpl*, Record>& g_records;
// The op of the last draw (reports name it): a pointer to a string that lives
// as long as the process (the rows' names, kStart, kInnerEnd).
extern const std::string* g_last_op;
extern const std::string kStart, kInnerEnd;
// The thread that entered the mode, and the ops of other threads that drew
// from the default generator (streams.cpp).
extern std::thread::id g_owner;
extern std::string& g_foreign;

std::string last_op();
const Config& config();
Key key_of(uint64_t seed, std::optional<uint64_t> tag);
void report(const std::string& op, const std::string& why);
at::Generator default_cpu();
c10::GeneratorImpl* default_impl();
// The record a draw with `gen` uses, and the generator that names it.
Record& record_for(const std::optional<at::Generator>& gen, at::Generator& named);
const Pos* copied_position(const at::Generator& g, uint64_t h);
// Where a draw with `named` starts (SPEC 8.1): the state decides.
Pos& resolve(Record& rec, at::Generator& named, bool fresh_record, const std::string& op, Live* live = nullptr);
void commit(Record& rec, at::Generator& named, const std::string& op, Live* live = nullptr);
// record_for, and whether the record is new (then it remembers its generator). Under g_lock.
Record& record_of(const std::optional<at::Generator>& gen, at::Generator& named, bool& is_new);

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

// Before torch's own kernel runs a call: the generator's state resolved (streams.cpp).
void settle(const std::optional<at::Generator>& gen, const std::string& op);
// After torch's own kernel drew for a reported call: its draws are not foreign.
void absorb(const std::optional<at::Generator>& gen);

}  // namespace xrng::torch_api::mode::detail
