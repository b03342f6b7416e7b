#include "record-folder.h"

#include <cstddef>
#include <cstring>
#include <utility>

namespace provd {

namespace {

constexpr size_t ktimeAt = offsetof(event_header, ktime_ns);
constexpr uint32_t loaderFlags = 02000000;  // O_RDONLY | O_CLOEXEC: how ld.so opens what it maps
const char* const libraryDirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/"};

bool startsWith(const char* text, size_t size, const char* prefix) {
  size_t length = strlen(prefix);
  return size >= length && memcmp(text, prefix, length) == 0;
}

// A loader's open: ld.so.cache, or a shared object under a system library directory. Only these:
// a library elsewhere (an LD_PRELOAD in /tmp, an RPATH in a home) stays a file event of its own.
bool isLibraryPath(const char* path, size_t size) {
  if (size == strlen("/etc/ld.so.cache") && memcmp(path, "/etc/ld.so.cache", size) == 0) return true;
  bool inLibraryDir = false;
  for (const char* dir : libraryDirs) inLibraryDir = inLibraryDir || startsWith(path, size, dir);
  if (!inLibraryDir || memmem(path, size, ".so", 3) == nullptr) return false;
  return memmem(path, size, "/..", 3) == nullptr;  // no way out of the directory
}

// the same event but for its capture time
bool sameEvent(const std::vector<uint8_t>& held, const event_header* record, size_t size) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(record);
  return held.size() == size && memcmp(held.data(), bytes, ktimeAt) == 0 &&
         memcmp(held.data() + ktimeAt + 8, bytes + ktimeAt + 8, size - ktimeAt - 8) == 0;
}

bool isRepeatable(uint16_t op) {
  return op == OP_FILE_OPEN || op == OP_FILE_RENAME || op == OP_FILE_UNLINK || op == OP_CONNECT || op == OP_DNS ||
         op == OP_SETUID || op == OP_SETGID || op == OP_PTRACE;
}

}  // namespace

uint64_t RecordFolder::firstNs(const std::vector<uint8_t>& bytes) {
  uint64_t ns;
  memcpy(&ns, bytes.data() + ktimeAt, sizeof(ns));
  return ns;
}

void RecordFolder::take(const event_header* record, size_t size) {
  size = record->size;
  if (loading_.count(record->tgid) != 0) {
    if (record->op == OP_FILE_OPEN && foldLibrary(record, size)) return;
    releaseLoading(record->tgid);  // the loader is done: the exec goes out before what follows it
  }
  if (record->op == OP_EXEC) {
    release(record->tid);
    Loading& loading = loading_[record->tgid];
    loading.exec.assign(reinterpret_cast<const uint8_t*>(record), reinterpret_cast<const uint8_t*>(record) + size);
    memset(&loading.libraries, 0, offsetof(libraries_record, paths));
    return;
  }
  auto found = held_.find(record->tid);
  if (found != held_.end()) {
    std::vector<Held>& list = found->second;
    // held records are in the order of their first times: those past their window lead
    size_t due = 0;
    while (due < list.size() && record->ktime_ns - firstNs(list[due].bytes) > windowNs_) due++;
    for (size_t i = due; i < list.size(); i++) {
      if (!sameEvent(list[i].bytes, record, size)) continue;
      list[i].count++;
      list[i].lastNs = record->ktime_ns;
      folded_++;
      if (due > 0) release(record->tid, due);
      return;
    }
    // anything else the thread does lets every held record go first: its events keep their order;
    // a new foldable record makes room by letting the oldest go
    size_t count = due;
    if (!isRepeatable(record->op))
      count = SIZE_MAX;
    else if (list.size() - due >= heldPerThread)
      count = list.size() - (heldPerThread - 1);
    release(record->tid, count);
  }
  if (!isRepeatable(record->op)) {
    emit_(record, size);
    return;
  }
  if (heldCount_ >= heldMax) expire(0, true);
  Held& held = held_[record->tid].emplace_back();
  heldCount_++;
  held.bytes.assign(reinterpret_cast<const uint8_t*>(record), reinterpret_cast<const uint8_t*>(record) + size);
  held.count = 1;
  held.lastNs = record->ktime_ns;
}

bool RecordFolder::foldLibrary(const event_header* record, size_t size) {
  if (size < offsetof(file_open_event, path)) return false;
  const auto* open = reinterpret_cast<const file_open_event*>(record);
  size_t pathSize = size - offsetof(file_open_event, path);
  if (open->flags != loaderFlags || open->base_size != 0 || (record->flags & RECORD_TRUNCATED) != 0 ||
      pathSize == 0 || open->path[0] != '/' || !isLibraryPath(open->path, pathSize))
    return false;
  libraries_record& libraries = loading_[record->tgid].libraries;
  libraries.opens++;
  folded_++;
  if (libraries.kept < librariesMax && libraries.paths_size + pathSize + 1 <= libraryBytesMax) {
    libraries.results[libraries.kept++] = open->result;
    memcpy(libraries.paths + libraries.paths_size, open->path, pathSize);
    libraries.paths[libraries.paths_size + pathSize] = 0;
    libraries.paths_size += pathSize + 1;
  }
  return true;
}

void RecordFolder::release(uint32_t tid, size_t count) {
  auto found = held_.find(tid);
  if (found == held_.end() || count == 0) return;
  std::vector<Held>& list = found->second;
  size_t released = count < list.size() ? count : list.size();
  for (size_t i = 0; i < released; i++) emitHeld(list[i]);
  heldCount_ -= released;
  if (released == list.size())
    held_.erase(found);
  else
    list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(released));
}

void RecordFolder::emitHeld(const Held& held) {
  emit_(held.bytes.data(), held.bytes.size());
  if (held.count > 1) {
    repeat_record repeat{};
    memcpy(&repeat.header, held.bytes.data(), sizeof(event_header));
    repeat.header.op = opRepeat;
    repeat.header.size = sizeof(repeat);
    repeat.count = held.count;
    repeat.last_ktime_ns = held.lastNs;
    emit_(&repeat, sizeof(repeat));
  }
}

void RecordFolder::releaseLoading(uint32_t tgid) {
  auto found = loading_.find(tgid);
  if (found == loading_.end()) return;
  Loading& loading = found->second;
  emit_(loading.exec.data(), loading.exec.size());
  if (loading.libraries.opens > 0) {
    libraries_record& libraries = loading.libraries;
    memcpy(&libraries.header, loading.exec.data(), sizeof(event_header));
    libraries.header.op = opLibraries;
    libraries.header.flags = libraries.kept < libraries.opens ? RECORD_TRUNCATED : 0;
    libraries.header.size = offsetof(libraries_record, paths) + libraries.paths_size;
    emit_(&libraries, libraries.header.size);
  }
  loading_.erase(found);
}

void RecordFolder::expire(uint64_t nowNs, bool all) {
  std::vector<uint32_t> due;
  for (const auto& [tgid, loading] : loading_)
    if (all || firstNs(loading.exec) + windowNs_ <= nowNs) due.push_back(tgid);
  for (uint32_t tgid : due) releaseLoading(tgid);
  std::vector<std::pair<uint32_t, size_t>> dueHeld;
  for (const auto& [tid, list] : held_) {
    size_t count = 0;
    while (count < list.size() && (all || firstNs(list[count].bytes) + windowNs_ <= nowNs)) count++;
    if (count > 0) dueHeld.emplace_back(tid, count);
  }
  for (const auto& [tid, count] : dueHeld) release(tid, count);
}

uint64_t RecordFolder::nextDueNs() const {
  uint64_t next = 0;
  auto consider = [&](uint64_t ns) { next = next == 0 || ns < next ? ns : next; };
  for (const auto& entry : loading_) consider(firstNs(entry.second.exec) + windowNs_);
  for (const auto& entry : held_) consider(firstNs(entry.second.front().bytes) + windowNs_);
  return next;
}

}  // namespace provd
