// Polls the ring buffers of the loaded objects on a thread of its own, and hands JS batches of
// raw records: [int64 wall-minus-monotonic ns][record, padded to 8 bytes]... (src/sensor/batch.ts).
#pragma once
#include <napi.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "exec-history.h"
#include "record-folder.h"

struct ring_buffer;

namespace provd {

struct BatchLimits {
  uint32_t records;  // a batch is handed over at this many records,
  uint32_t bytes;    // or at this many bytes,
  uint32_t flushMs;  // or when its first record is this old
  uint32_t stallMs;  // fault injection for tests: the reader sleeps this long after each poll
};

// Counters of what the reader did; read from any thread.
struct ReaderStats {
  std::atomic<uint64_t> records{0};
  std::atomic<uint64_t> batches{0};
  std::atomic<uint64_t> droppedRecords{0};  // in batches JS was too far behind to take
  std::atomic<uint64_t> droppedBatches{0};
  std::atomic<uint64_t> malformedRecords{0};  // shorter than their header says
  std::atomic<uint64_t> foldedRecords{0};     // folded into another record (record-folder.h)
};

class RingReader {
 public:
  // Starts polling `ringFds`; batches go to `onBatch(ArrayBuffer, records)` on the JS thread; each
  // record also goes to `execs` when given, as it is read.
  RingReader(Napi::Env env, const std::vector<int>& ringFds, BatchLimits limits, Napi::Function onBatch,
             ExecHistory* execs = nullptr);
  ~RingReader();

  // Stops the thread, hands over what it holds, and lets the JS callback go; idempotent.
  void stop();

  // Resolves on the JS thread when the thread-safe function is finalized. Queued batches can still
  // arrive after it (measured under load): stats().batches is what the caller waits for.
  Napi::Promise drained() const { return drained_->Promise(); }

  // Reads what the rings hold now, on the calling thread (the JS thread): once it returns, every
  // record the kernel submitted before the call has gone to `execs`. Nothing after stop().
  void consumeNow();

  // Reads what the rings hold now and hands over the batch being built, on the calling thread (the
  // JS thread), so that a run's records reach JS before its end is sealed. A record the folder holds
  // for its repeats or loader opens (at most 100 ms) goes with a later batch. Returns how many batches
  // were queued in all (stats().batches); nothing after stop().
  uint64_t handOverNow();

  const ReaderStats& stats() const { return stats_; }
  // Why polling ended early, empty while it runs.
  std::string failure() const;

 private:
  static int onRecord(void* context, void* data, size_t size);
  void append(const void* data, size_t size);
  void run();
  void flush();
  // the batch reached its record or byte limit
  bool full() const;
  void closeFds();
  // how long the next wait may last: until the batch is due, at most idleMs
  int waitMs() const;

  ring_buffer* rings_ = nullptr;
  int epoll_ = -1;  // waits on the rings' epoll fd and on wake_
  int wake_ = -1;   // an eventfd: stop() wakes the reader through it
  BatchLimits limits_;
  Napi::ThreadSafeFunction deliver_;
  std::shared_ptr<Napi::Promise::Deferred> drained_;
  std::vector<uint8_t>* batch_ = nullptr;
  uint32_t batchRecords_ = 0;
  uint64_t batchStartedMs_ = 0;
  std::atomic<bool> stopping_{false};
  // held while the rings are read and the batch is built: by the reader's thread, or by consumeNow()
  std::mutex reading_;
  ExecHistory* execs_ = nullptr;
  std::thread thread_;
  ReaderStats stats_;
  std::unique_ptr<RecordFolder> folder_;
  std::string failure_;
  bool stopped_ = false;
};

}  // namespace provd
