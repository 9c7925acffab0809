// The reproducible mode's dispatcher engine: see mode.h. Its parts, in
// bindings/mode/ (namespace xrng::torch_api::mode::detail):
//   1. streams (streams.h, streams.cpp): which xrng position a draw with a
//      torch generator starts at (re-seeds, restores and copies recognised by
//      the generator's state);
//   2. the table kModeOps (table.h): one row per covered aten operator, and
//      its kernel (kernels.cpp: one Kernel per row and dispatch key, the form
//      of the row reading the operator's arguments; the in-place rows are
//      registered unboxed, the others boxed), which draws with the helpers of
//      draws.h (DTensor shards: blocks.h);
//   3. installation (kernels.cpp): torch::Library objects made at the first
//      entry, dropped at the last (torch's kernels come back);
//   4. torch's own generators as the stream (torch_streams.h, issue 26):
//      stream="torch-cpu-x86" | "torch-cpu-scalar" | "torch-cuda".
// This file: the entries (begin, end) and the queries of mode.h; block_begin
// and block_end are in mode/blocks.cpp.
#include "mode.h"

#include <c10/util/Exception.h>

#include <iterator>
#include <mutex>
#include <thread>

#include "mode/kernels.h"
#include "mode/streams.h"
#include "mode/table.h"
#include "mode/torch_streams.h"
#include "rng/torch_cpu.h"  // Release

namespace xrng::torch_api::mode {
using namespace detail;

void begin(const Config& cfg) {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  TORCH_CHECK(cfg.torch >= kXrng && cfg.torch <= kTorchStreamLast, "xrng.reproducible: unknown torch stream ",
              cfg.torch);
  TORCH_CHECK(cfg.torch != kTorchCuda || cfg.sm_count > 0, "xrng.reproducible: the torch-cuda stream needs sm_count");
  TORCH_CHECK(cfg.release >= 0 && cfg.release < xrng::torch_cpu::kReleaseCount &&
                  (cfg.release == 0 || is_torch_cpu(cfg.torch)),
              "xrng.reproducible: a torch release goes with the torch-cpu streams only");
  if (!g_entries.empty()) {
    const Config& outer = g_entries.back().config;
    TORCH_CHECK(outer.torch == cfg.torch && outer.release == cfg.release &&
                    (cfg.torch != kTorchCuda || (outer.sm_count == cfg.sm_count &&
                                                 outer.threads_per_sm == cfg.threads_per_sm)),
                "xrng.reproducible: an entry with the ", torch_stream_name(cfg), " stream inside one with the ",
                torch_stream_name(outer), " stream; entries of different kinds of stream do not nest");
  }
  const bool torch_cpu = is_torch_cpu(cfg.torch);
  Entry e;
  e.config = cfg;
  e.id = ++g_entry_ids;
  if (!g_entries.empty() && !torch_cpu) e.saved = g_global.pos;
  const bool first = g_entries.empty();
  if (first)  // the records of generators that no longer exist
    for (auto it = g_records.begin(); it != g_records.end();)
      it = it->second.owner.expired() ? g_records.erase(it) : std::next(it);
  static int records_kind = kXrng;  // the kind of stream the records' positions are in
  if (first && cfg.torch != records_kind) {  // xrng positions and torch-cuda (seed, offset) never mix
    g_records.clear();
    g_global = Record();
    records_kind = cfg.torch;
  }
  g_entries.push_back(e);
  if (first) {
    g_owner = std::this_thread::get_id();
    g_foreign.clear();
    g_release_now.store(cfg.release, std::memory_order_relaxed);  // (published by the store below)
    g_stream_now.store(cfg.torch, std::memory_order_release);
  }
  try {
    if (first) install();
    if (torch_cpu) {  // the state is torch's own CPU generator: seeded if a seed was given, never marked
      if (cfg.seeded) {
        at::Generator g = default_cpu();
        std::lock_guard<std::mutex> glock(g.mutex());
        g.set_current_seed(cfg.seed);
      }
      g_global.state = TorchState{};
      return;
    }
    g_global.global = true;
    g_global.pos = Pos{key_of(cfg.seed, cfg.tag), 0};
    at::Generator g = default_cpu();
    std::lock_guard<std::mutex> glock(g.mutex());
    commit(g_global, g, kStart);
  } catch (...) {
    g_entries.pop_back();
    if (first) {
      g_stream_now.store(-1, std::memory_order_release);
      uninstall();
    }
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
        g_stream_now.store(-1, std::memory_order_release);
        uninstall();
      } else if (e.saved) {  // the outer entry resumes where it was
        g_global.pos = *e.saved;
        at::Generator g = default_cpu();
        std::lock_guard<std::mutex> glock(g.mutex());
        commit(g_global, g, kInnerEnd);
      }
    }
  } pop;
  const int ts = g_entries.back().config.torch;
  if (check && g_global.state.valid && !is_torch_cpu(ts)) {
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

bool active() {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  return !g_entries.empty();
}

std::vector<uint64_t> global_position() {
  std::lock_guard<std::recursive_mutex> lock(g_lock);
  TORCH_CHECK(g_entries.empty() || config().torch == kXrng, "xrng.reproducible: the ", torch_stream_name(config()),
              " stream has no xrng position (its state is torch's generator's: torch.get_rng_state())");
  return {g_global.pos.key.seed, g_global.pos.key.subseq, g_global.pos.offset,
          static_cast<uint64_t>(g_entries.empty() ? kStreamVersion : config().stream)};
}

std::vector<OpInfo> mode_ops() {
  std::vector<OpInfo> v;
  for (const OpRow& r : kModeOps) v.push_back({op_name(r).substr(6), r.draw, r.words});
  return v;
}

}  // namespace xrng::torch_api::mode
