#include "exec-history.h"

#include <algorithm>
#include <cstddef>

namespace provd {

void ExecHistory::take(const event_header* record, size_t size) {
  if (record->op == OP_EXIT) {
    std::lock_guard<std::mutex> hold(lock_);
    pids_.erase(record->tgid);
    return;
  }
  if (record->op != OP_EXEC || size < offsetof(exec_event, argv)) return;
  const auto* exec = reinterpret_cast<const exec_event*>(record);
  size_t argvSize = std::min<size_t>({exec->argv_size, size - offsetof(exec_event, argv), argvMax});
  bool truncated = (record->flags & RECORD_TRUNCATED) != 0 || argvSize < exec->argv_size;
  std::lock_guard<std::mutex> hold(lock_);
  if (pids_.size() >= pidsMax_ && pids_.find(record->tgid) == pids_.end()) evictOldest();
  Pid& pid = pids_[record->tgid];
  if (pid.execs.size() >= perPidMax) {
    pid.droppedNewestNs = std::max(pid.droppedNewestNs, pid.execs.front().ktimeNs);
    pid.execs.erase(pid.execs.begin());
  }
  pid.execs.push_back({record->ktime_ns, std::string(exec->argv, argvSize), truncated});
}

void ExecHistory::setPidsMax(size_t pidsMax) {
  std::lock_guard<std::mutex> hold(lock_);
  pidsMax_ = std::max<size_t>(pidsMax, 1);
}

// the entry whose last exec is oldest: under a flood of new processes, the most recent stay
void ExecHistory::evictOldest() {
  auto oldest = pids_.end();
  for (auto at = pids_.begin(); at != pids_.end(); ++at) {
    if (oldest == pids_.end() || at->second.execs.back().ktimeNs < oldest->second.execs.back().ktimeNs) oldest = at;
  }
  if (oldest == pids_.end()) return;
  evictedNewestNs_ = std::max(evictedNewestNs_, oldest->second.execs.back().ktimeNs);
  evicted_++;
  pids_.erase(oldest);
}

ExecLookup ExecHistory::lookup(uint32_t tgid, uint64_t sinceNs) const {
  std::lock_guard<std::mutex> hold(lock_);
  ExecLookup found{{}, false, evictedNewestNs_ >= sinceNs && evicted_ > 0};
  auto at = pids_.find(tgid);
  if (at == pids_.end()) return found;
  for (const ExecEntry& entry : at->second.execs)
    if (entry.ktimeNs >= sinceNs) found.execs.push_back(entry);
  found.droppedSince = at->second.droppedNewestNs >= sinceNs && at->second.droppedNewestNs != 0;
  return found;
}

uint64_t ExecHistory::evicted() const {
  std::lock_guard<std::mutex> hold(lock_);
  return evicted_;
}

size_t ExecHistory::size() const {
  std::lock_guard<std::mutex> hold(lock_);
  return pids_.size();
}

}  // namespace provd
