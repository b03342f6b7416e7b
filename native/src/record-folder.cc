#include "record-folder.h"

#include <cstddef>
#include <cstring>
#include <iterator>
#include <utility>

namespace provd {

namespace {

constexpr size_t ktimeAt = offsetof(event_header, ktime_ns);
constexpr uint32_t loaderFlags = 02000000;  // O_RDONLY | O_CLOEXEC: how ld.so opens what it maps
const char* const libraryDirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/"};
// the view's system library directories (src/views/timeline/loader-opens.sql.ts), for gconv
const char* const systemLibraryDirs[] = {"/lib/",      "/lib32/",      "/lib64/",      "/libx32/",       "/usr/lib/",
                                         "/usr/lib32/", "/usr/lib64/", "/usr/libx32/", "/usr/local/lib/"};
const char* const localeDirs[] = {"/usr/lib/locale/", "/usr/share/locale/"};

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

bool equals(const char* text, size_t size, const char* word) {
  return size == strlen(word) && memcmp(text, word, size) == 0;
}

bool startsWithAny(const char* path, size_t size, const char* const* dirs, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (startsWith(path, size, dirs[i])) return true;
  return false;
}

// absolute, with no empty, `.` or `..` segment (no way out of the directory it names)
bool isCleanPath(const char* path, size_t size) {
  if (size == 0 || path[0] != '/') return false;
  size_t start = 1;
  for (size_t i = 1; i <= size; i++) {
    if (i < size && path[i] != '/') continue;
    size_t length = i - start;
    if (length == 0 || (length <= 2 && memcmp(path + start, "..", length) == 0)) return false;
    start = i + 1;
  }
  return true;
}

// LC_CTYPE, LC_MESSAGES, SYS_LC_MESSAGES...: a category file of a compiled locale
bool isLocaleCategory(const char* name, size_t size) {
  size_t prefix = startsWith(name, size, "LC_") ? 3 : startsWith(name, size, "SYS_LC_") ? 7 : 0;
  if (prefix == 0 || size == prefix) return false;
  for (size_t i = prefix; i < size; i++)
    if ((name[i] < 'A' || name[i] > 'Z') && name[i] != '_') return false;
  return true;
}

// a `gconv-modules` or `gconv-modules.cache` in a `gconv` directory under a system library directory
bool isGconvPath(const char* path, size_t size) {
  if (!isCleanPath(path, size) || !startsWithAny(path, size, systemLibraryDirs, std::size(systemLibraryDirs)))
    return false;
  const char* slash = static_cast<const char*>(memrchr(path, '/', size));
  const char* name = slash + 1;
  size_t nameSize = size - static_cast<size_t>(name - path);
  // the `/gconv/` before the name may start at the library directory's own last slash
  size_t dirSize = static_cast<size_t>(slash - path);
  return dirSize >= strlen("/gconv") && memcmp(slash - strlen("/gconv"), "/gconv", strlen("/gconv")) == 0 &&
         (equals(name, nameSize, "gconv-modules") || equals(name, nameSize, "gconv-modules.cache"));
}

// The C library's locale opens at start: a compiled locale's files under /usr/lib/locale/ or
// /usr/share/locale/ (locale-archive, locale.alias, LC_* category files) and the gconv module
// configuration. The directories are the view's (src/views/timeline/loader-opens.sql.ts); the names
// are only those the C library opens, so no name a secret rule or a user would look for (a key, a
// .env, a message catalog opened later) folds.
bool isLocalePath(const char* path, size_t size) {
  if (!isCleanPath(path, size)) return false;
  if (!startsWithAny(path, size, localeDirs, std::size(localeDirs))) return isGconvPath(path, size);
  const char* name = static_cast<const char*>(memrchr(path, '/', size)) + 1;
  size_t nameSize = size - static_cast<size_t>(name - path);
  return equals(name, nameSize, "locale-archive") || equals(name, nameSize, "locale.alias") ||
         isLocaleCategory(name, nameSize);
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
    if (record->op == OP_FILE_OPEN && (foldLoading(record, size) || keepUnreadable(record, size))) return;
    releaseLoading(record->tgid);  // the loader is done: the exec goes out before what follows it
  }
  if (record->op == OP_EXEC) {
    release(record->tid);
    Loading& loading = loading_[record->tgid];
    loading.exec.assign(reinterpret_cast<const uint8_t*>(record), reinterpret_cast<const uint8_t*>(record) + size);
    memset(&loading.libraries, 0, offsetof(libraries_record, paths));
    memset(&loading.locale, 0, offsetof(libraries_record, paths));
    loading.unreadable.clear();
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

bool RecordFolder::foldLoading(const event_header* record, size_t size) {
  if (size < offsetof(file_open_event, path)) return false;
  const auto* open = reinterpret_cast<const file_open_event*>(record);
  size_t pathSize = size - offsetof(file_open_event, path);
  if (open->base_size != 0 || (record->flags & RECORD_TRUNCATED) != 0 || pathSize == 0 || open->path[0] != '/')
    return false;
  Loading& loading = loading_[record->tgid];
  if (open->flags == loaderFlags && isLibraryPath(open->path, pathSize))
    keepOpen(loading.libraries, open, pathSize);
  // the C library opens its gconv cache with O_RDONLY alone; a command's own open of a locale file
  // (a `cat`, a shell's `<`) has no O_CLOEXEC either, and stays an event
  else if ((open->flags == loaderFlags || (open->flags == 0 && isGconvPath(open->path, pathSize))) &&
           isLocalePath(open->path, pathSize))
    keepOpen(loading.locale, open, pathSize);
  else
    return false;
  folded_++;
  return true;
}

// The C library's first locale open (locale-archive) names a path in its own read-only data, often
// not paged in yet when the probe reads it: that open stays an event (its path unknown), after the
// exec, and the fold goes on past it rather than store the locale's other opens one by one.
bool RecordFolder::keepUnreadable(const event_header* record, size_t size) {
  if (size < offsetof(file_open_event, path) || (record->flags & RECORD_UNREADABLE) == 0) return false;
  const auto* open = reinterpret_cast<const file_open_event*>(record);
  Loading& loading = loading_[record->tgid];
  if (open->flags != loaderFlags || loading.unreadable.size() >= unreadableMax) return false;
  const auto* bytes = reinterpret_cast<const uint8_t*>(record);
  loading.unreadable.emplace_back(bytes, bytes + size);
  return true;
}

void RecordFolder::keepOpen(libraries_record& opens, const file_open_event* open, size_t pathSize) {
  opens.opens++;
  if (open->result < 0) opens.failed++;
  if (opens.kept < librariesMax && opens.paths_size + pathSize + 1 <= libraryBytesMax) {
    opens.results[opens.kept++] = open->result;
    memcpy(opens.paths + opens.paths_size, open->path, pathSize);
    opens.paths[opens.paths_size + pathSize] = 0;
    opens.paths_size += pathSize + 1;
  }
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
  emitOpens(loading.libraries, loading.exec, opLibraries);
  emitOpens(loading.locale, loading.exec, opLocale);
  for (const std::vector<uint8_t>& open : loading.unreadable) emit_(open.data(), open.size());
  loading_.erase(found);
}

void RecordFolder::emitOpens(libraries_record& opens, const std::vector<uint8_t>& exec, uint16_t op) {
  if (opens.opens == 0) return;
  memcpy(&opens.header, exec.data(), sizeof(event_header));
  opens.header.op = op;
  opens.header.flags = opens.kept < opens.opens ? RECORD_TRUNCATED : 0;
  opens.header.size = offsetof(libraries_record, paths) + opens.paths_size;
  emit_(&opens, opens.header.size);
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
