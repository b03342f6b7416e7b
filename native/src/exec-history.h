// Each process's recent execs, kept as the ring reader reads them (before the record folder holds
// any), so the daemon can ask what a process exec'd since its fork the moment it asks: a hook
// caller is placed by it (src/agents/exec-history-check.ts). A genuine hook's processes exec one
// or two short command lines; a tool call that exec'd the hook's command line in place has its
// tool's shell before it. Bounded: perPidMax execs a process (older ones dropped, the newest
// dropped time kept), pidsMax_ processes (past it the one whose last exec is oldest goes, counted,
// and the newest exec time evicted is kept, so a lookup knows when an entry it needs may be gone).
// A process's entry is removed at its exit record.
#pragma once
#include <linux/types.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "event.h"

namespace provd {

struct ExecEntry {
  uint64_t ktimeNs;   // CLOCK_MONOTONIC at the exec
  std::string argv;   // NUL-separated, as the record carries it
  bool truncated;     // the record's argv was cut (RECORD_TRUNCATED)
};

// What a lookup found of one pid since a time.
struct ExecLookup {
  std::vector<ExecEntry> execs;  // oldest first
  bool droppedSince;             // it exec'd more than perPidMax times since then: older ones are gone
  bool evictedSince;             // an entry with an exec since then was evicted: this pid's may have been
};

class ExecHistory {
 public:
  static constexpr size_t perPidMax = 8;
  static constexpr size_t pidsDefault = 16384;
  static constexpr size_t argvMax = 512;  // bytes of argv kept: a hook's command line is far shorter

  // the processes held (at least 1); smaller than pidsDefault only for tests
  void setPidsMax(size_t pidsMax);

  // one record from the ring (reader thread): an exec is kept, an exit removes its process
  void take(const event_header* record, size_t size);
  // what `tgid` exec'd at or after `sinceNs` (CLOCK_MONOTONIC)
  ExecLookup lookup(uint32_t tgid, uint64_t sinceNs) const;
  uint64_t evicted() const;
  size_t size() const;

 private:
  struct Pid {
    std::vector<ExecEntry> execs;
    uint64_t droppedNewestNs = 0;
  };
  void evictOldest();

  mutable std::mutex lock_;
  size_t pidsMax_ = pidsDefault;
  std::unordered_map<uint32_t, Pid> pids_;
  uint64_t evicted_ = 0;
  uint64_t evictedNewestNs_ = 0;
};

}  // namespace provd
