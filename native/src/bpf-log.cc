#include "bpf-log.h"

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace provd {

namespace {

constexpr size_t maxKeptBytes = 4096;
std::mutex logMutex;
std::string kept;

int keepMessage(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char line[512];
  int length = vsnprintf(line, sizeof(line), format, args);
  if (length <= 0) return 0;
  std::lock_guard<std::mutex> lock(logMutex);
  kept.append(line, std::min<size_t>(static_cast<size_t>(length), sizeof(line) - 1));
  if (kept.size() > maxKeptBytes) kept.erase(0, kept.size() - maxKeptBytes);
  return length;
}

}  // namespace

void captureLibbpfLog() { libbpf_set_print(keepMessage); }

std::string takeLibbpfLog() {
  std::lock_guard<std::mutex> lock(logMutex);
  std::string taken;
  taken.swap(kept);
  while (!taken.empty() && (taken.back() == '\n' || taken.back() == ' ')) taken.pop_back();
  return taken;
}

}  // namespace provd
