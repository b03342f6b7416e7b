// Folds records before they are batched, so the daemon stores (and hashes) fewer, richer events:
// - a dynamic loader's opens of shared libraries (and /etc/ld.so.cache) right after an exec become
//   a `libraries` record that follows the exec's, instead of one file event each; the C library's
//   locale opens among or after them (locale and gconv files) likewise become a `locale` record;
// - a record repeated by the same thread, identical but for its capture time, within windowNs of
//   the first, becomes that record followed by a `repeat` record holding the count and the last time,
//   also when other foldable records of the thread came between them (a loop of open, open, connect:
//   up to heldPerThread distinct records wait at once); anything else the thread does (an exec, an
//   exit, TLS data) lets them all go first, so a thread's events keep the order of their first times.
// Mirrored in src/sensor/folded-records.ts; the README's sensor section says what is folded.
#pragma once
#include <linux/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "event.h"

namespace provd {

// user-space records, never written by BPF: must match src/sensor/records.ts: RecordOp
constexpr uint16_t opRepeat = 102;
constexpr uint16_t opLibraries = 103;
constexpr uint16_t opLocale = 104;  // a libraries_record of the locale opens
constexpr uint32_t librariesMax = 32;       // paths kept; past them only counted
constexpr uint32_t libraryBytesMax = 4096;  // bytes of paths kept
constexpr size_t unreadableMax = 4;         // opens with an unreadable path an exec's fold goes past
constexpr size_t heldPerThread = 4;         // distinct records of one thread waiting for repeats
constexpr size_t heldMax = 16384;           // records waiting in all: past it every one goes out

// follows the record it repeats: must match src/sensor/folded-records.ts: repeatRecord
struct repeat_record {
  event_header header;
  __u32 count;  // times the record happened in all, itself included
  __u32 reserved;
  __u64 last_ktime_ns;
};

// follows an exec record (opLibraries, then opLocale, each only when it folded an open): must
// match src/sensor/folded-records.ts: librariesRecord
struct libraries_record {
  event_header header;
  __u32 opens;       // the opens folded, failed ones included
  __u32 kept;        // entries in results and paths
  __u32 paths_size;  // bytes of paths: each path NUL-terminated
  __u32 failed;      // the opens folded that failed, kept or not
  __s32 results[librariesMax];
  char paths[libraryBytesMax];
};

class RecordFolder {
 public:
  using Emit = std::function<void(const void* data, size_t size)>;
  RecordFolder(uint64_t windowNs, Emit emit) : windowNs_(windowNs), emit_(std::move(emit)) {}

  // one record from the ring, `size` bytes of data
  void take(const event_header* record, size_t size);
  // emits what was held longer than the window by `nowNs` (CLOCK_MONOTONIC), or everything
  void expire(uint64_t nowNs, bool all);
  // when the next held record is due, or 0 when none is held
  uint64_t nextDueNs() const;
  // records folded into another (repeats, library and locale opens), for the reader's stats
  uint64_t folded() const { return folded_; }

 private:
  struct Held {
    std::vector<uint8_t> bytes;
    uint32_t count = 1;
    uint64_t lastNs = 0;
  };
  struct Loading {
    // not zeroed whole (4 KiB of paths an exec): take() clears the part before the paths, and
    // only the paths written are sent
    Loading() {}  // NOLINT(modernize-use-equals-default): "= default" would value-initialize it
    std::vector<uint8_t> exec;
    libraries_record libraries;
    libraries_record locale;
    std::vector<std::vector<uint8_t>> unreadable;  // read-only opens whose path could not be read
  };
  // lets the first `count` records a thread holds go (all: SIZE_MAX), oldest first
  void release(uint32_t tid, size_t count = SIZE_MAX);
  void emitHeld(const Held& held);
  void releaseLoading(uint32_t tgid);
  // folds a loader's or a locale open of a process that exec'd and did nothing else yet
  bool foldLoading(const event_header* record, size_t size);
  bool keepUnreadable(const event_header* record, size_t size);
  static void keepOpen(libraries_record& opens, const file_open_event* open, size_t pathSize);
  void emitOpens(libraries_record& opens, const std::vector<uint8_t>& exec, uint16_t op);
  static uint64_t firstNs(const std::vector<uint8_t>& bytes);

  uint64_t windowNs_;
  Emit emit_;
  std::unordered_map<uint32_t, std::vector<Held>> held_;  // by thread, oldest first
  size_t heldCount_ = 0;
  std::unordered_map<uint32_t, Loading> loading_;  // by process, from its exec until its loader is done
  uint64_t folded_ = 0;
};

}  // namespace provd
