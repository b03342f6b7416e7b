#include "ring-reader.h"

#include <bpf/libbpf.h>
#include <linux/types.h>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "event.h"

namespace provd {

namespace {

// batches JS has not taken yet; past it a new batch is dropped and counted
constexpr size_t maxQueuedBatches = 32;
// The kernel side wakes the reader with the record that finds a ring empty, or once one fills up
// (bpf/lib/emit.h, wakeup_flag). After a read that found records the reader lets a burst gather this
// long, so a busy ring wakes it about once per gather rather than once per record; it also reads
// every idleMs, for records whose wakeup two CPUs left to each other.
constexpr int gatherMs = 10;
constexpr int idleMs = 1000;
// how long a record may wait for its repeats, and an exec for its loader's opens (record-folder.h)
constexpr uint64_t foldWindowMs = 100;

uint64_t clockNs(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

// a full batch on its way to JS, with its record count (JS never walks the records to count them)
struct HandedBatch {
  std::vector<uint8_t> bytes;
  uint32_t records;
};

std::vector<uint8_t>* newBatch() {
  auto* batch = new std::vector<uint8_t>(8, 0);  // the clock offset goes in front
  return batch;
}

}  // namespace

RingReader::RingReader(Napi::Env env, const std::vector<int>& ringFds, BatchLimits limits,
                       Napi::Function onBatch, ExecHistory* execs)
    : limits_(limits), execs_(execs) {
  for (int fd : ringFds) {
    int added = rings_ == nullptr ? 0 : ring_buffer__add(rings_, fd, onRecord, this);
    if (rings_ == nullptr) rings_ = ring_buffer__new(fd, onRecord, this, nullptr);
    if (rings_ == nullptr || added != 0) {
      int error = rings_ == nullptr ? errno : -added;
      if (rings_ != nullptr) ring_buffer__free(rings_);
      throw std::runtime_error(std::string("failed to open the ring buffers: ") + strerror(error));
    }
  }
  // the reader waits on the rings and on wake_, which stop() writes to
  wake_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  epoll_event rings{EPOLLIN, {.u32 = 0}};
  epoll_event wake{EPOLLIN, {.u32 = 1}};
  if (wake_ < 0 || epoll_ < 0 || epoll_ctl(epoll_, EPOLL_CTL_ADD, ring_buffer__epoll_fd(rings_), &rings) != 0 ||
      epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &wake) != 0) {
    int error = errno;
    closeFds();
    ring_buffer__free(rings_);
    throw std::runtime_error(std::string("failed to wait on the ring buffers: ") + strerror(error));
  }
  drained_ = std::make_shared<Napi::Promise::Deferred>(Napi::Promise::Deferred::New(env));
  // the finalizer runs on the JS thread once the function is released
  deliver_ = Napi::ThreadSafeFunction::New(env, onBatch, "provd-ring-reader", maxQueuedBatches, 1,
                                           [drained = drained_](Napi::Env finalizing) {
                                             drained->Resolve(finalizing.Undefined());
                                           });
  batch_ = newBatch();
  folder_ = std::make_unique<RecordFolder>(foldWindowMs * 1000000ull,
                                           [this](const void* data, size_t size) { append(data, size); });
  thread_ = std::thread([this] { run(); });
}

RingReader::~RingReader() { stop(); }

void RingReader::stop() {
  if (stopped_) return;
  stopped_ = true;
  stopping_ = true;
  uint64_t one = 1;
  if (wake_ >= 0 && write(wake_, &one, sizeof(one)) < 0) {
    // the eventfd's counter cannot overflow from one write: the reader still ends within idleMs
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> hold(reading_);  // a consumeNow() on another thread ends first
  closeFds();
  deliver_.Release();
  delete batch_;
  batch_ = nullptr;
  if (rings_ != nullptr) ring_buffer__free(rings_);
  rings_ = nullptr;
}

std::string RingReader::failure() const { return failure_; }

void RingReader::consumeNow() {
  std::lock_guard<std::mutex> hold(reading_);
  if (stopped_ || rings_ == nullptr) return;
  ring_buffer__consume(rings_);  // a failure here is the reader thread's to report at its next read
}

uint64_t RingReader::handOverNow() {
  std::lock_guard<std::mutex> hold(reading_);
  if (stopped_ || rings_ == nullptr) return stats_.batches;
  ring_buffer__consume(rings_);  // a failure here is the reader thread's to report at its next read
  folder_->expire(clockNs(CLOCK_MONOTONIC), false);
  if (batchRecords_ > 0) flush();
  return stats_.batches;
}

void RingReader::closeFds() {
  if (epoll_ >= 0) close(epoll_);
  if (wake_ >= 0) close(wake_);
  epoll_ = wake_ = -1;
}

int RingReader::waitMs() const {
  uint64_t nowMs = clockNs(CLOCK_MONOTONIC) / 1000000;
  uint64_t wait = idleMs;
  if (batchRecords_ > 0) {
    uint64_t age = nowMs - batchStartedMs_;
    wait = age >= limits_.flushMs ? 0 : std::min<uint64_t>(wait, limits_.flushMs - age);
  }
  uint64_t dueMs = folder_->nextDueNs() / 1000000;
  if (dueMs != 0) wait = dueMs <= nowMs ? 0 : std::min<uint64_t>(wait, dueMs - nowMs + 1);
  return static_cast<int>(wait);
}

int RingReader::onRecord(void* context, void* data, size_t size) {
  auto* reader = static_cast<RingReader*>(context);
  const auto* header = static_cast<const event_header*>(data);
  if (size < sizeof(event_header) || header->size < sizeof(event_header) || header->size > size) {
    reader->stats_.malformedRecords++;
    return 0;
  }
  if (reader->execs_ != nullptr) reader->execs_->take(header, header->size);
  reader->folder_->take(header, header->size);
  reader->stats_.foldedRecords = reader->folder_->folded();
  return 0;
}

// true for what the folder writes after a record to complete it (a repeat, an exec's libraries or locale opens)
static bool completesRecordBefore(const void* data) {
  uint16_t op = static_cast<const event_header*>(data)->op;
  return op == opRepeat || op == opLibraries || op == opLocale;
}

bool RingReader::full() const { return batchRecords_ >= limits_.records || batch_->size() >= limits_.bytes; }

// a record the folder lets go: into the batch. A full batch is handed over before the next record
// that starts an event, never between a record and the one completing it: the decoder reads the two
// from one batch (src/sensor/decode-records.ts), so a repeat cut off from its record lost its count.
// A batch holds at most one record past its limits.
void RingReader::append(const void* data, size_t size) {
  if (batchRecords_ > 0 && full() && !completesRecordBefore(data)) flush();
  std::vector<uint8_t>& batch = *batch_;
  if (batchRecords_ == 0) {
    batchStartedMs_ = clockNs(CLOCK_MONOTONIC) / 1000000;
    batch.reserve(limits_.bytes + 8 + 8192);  // grown once, not copied at each doubling
  }
  const auto* bytes = static_cast<const uint8_t*>(data);
  size_t padded = batch.size() + ((size + 7u) & ~7u);
  batch.insert(batch.end(), bytes, bytes + size);
  batch.resize(padded, 0);  // zeroes the alignment padding only
  batchRecords_++;
  stats_.records++;
}

void RingReader::run() {
  while (!stopping_) {
    epoll_event ready[2];
    int wait;
    {
      std::lock_guard<std::mutex> hold(reading_);
      wait = waitMs();
    }
    int woken = epoll_wait(epoll_, ready, 2, wait);
    if (woken < 0 && errno != EINTR) {
      failure_ = std::string("failed to wait on the ring buffers: ") + strerror(errno);
      break;
    }
    if (stopping_) break;
    int read;
    {
      std::lock_guard<std::mutex> hold(reading_);
      // every ring: records sent without a wakeup sit beside the one that woke it
      read = ring_buffer__consume(rings_);
      if (read < 0 && read != -EINTR) {
        failure_ = std::string("failed to read the ring buffers: ") + strerror(-read);
        break;
      }
      folder_->expire(clockNs(CLOCK_MONOTONIC), false);
      // the folder emits a record and what completes it in one call: between calls a batch is whole
      if (batchRecords_ > 0 && (full() || clockNs(CLOCK_MONOTONIC) / 1000000 - batchStartedMs_ >= limits_.flushMs))
        flush();
    }
    if (limits_.stallMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(limits_.stallMs));
    if (read > 0) std::this_thread::sleep_for(std::chrono::milliseconds(gatherMs));
  }
  std::lock_guard<std::mutex> hold(reading_);
  ring_buffer__consume(rings_);  // what the kernel holds still goes out
  folder_->expire(0, true);
  if (batchRecords_ > 0) flush();
}

void RingReader::flush() {
  std::vector<uint8_t>* full = batch_;
  uint32_t records = batchRecords_;
  batch_ = newBatch();
  batchRecords_ = 0;
  // the offset that turns this batch's monotonic capture times into wall time
  int64_t offset = static_cast<int64_t>(clockNs(CLOCK_REALTIME) - clockNs(CLOCK_MONOTONIC));
  memcpy(full->data(), &offset, sizeof(offset));
  auto* handed = new HandedBatch{std::move(*full), records};
  delete full;
  napi_status queued = deliver_.NonBlockingCall(handed, [](Napi::Env env, Napi::Function onBatch, HandedBatch* batch) {
    if (env != nullptr && onBatch != nullptr) {
      Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, batch->bytes.size());
      memcpy(buffer.Data(), batch->bytes.data(), batch->bytes.size());
      onBatch.Call({buffer, Napi::Number::New(env, batch->records)});
    }
    delete batch;
  });
  if (queued != napi_ok) {
    delete handed;
    stats_.droppedRecords += records;
    stats_.droppedBatches++;
    return;
  }
  stats_.batches++;
}

}  // namespace provd
