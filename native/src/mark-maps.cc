#include "mark-maps.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <vector>

namespace provd {

namespace {

// The fd of `map` in the loaded connect_mark object, or -1.
int markMapFd(const LoadResult& loaded, const char* map) {
  for (const LoadedObject& object : loaded.objects) {
    if (object.name == "connect_mark") return bpf_object__find_map_fd_by_name(object.object, map);
  }
  return -1;
}

}  // namespace

bool setMarkTarget(const LoadResult& loaded, const mark_target& target) {
  int fd = markMapFd(loaded, "provd_mark_target");
  __u32 zero = 0;
  return fd >= 0 && bpf_map_update_elem(fd, &zero, &target, BPF_ANY) == 0;
}

bool readMarkCounts(const LoadResult& loaded, mark_counts& counts) {
  int fd = markMapFd(loaded, "provd_mark_counts");
  int cpus = libbpf_num_possible_cpus();
  if (fd < 0 || cpus <= 0) return false;
  std::vector<mark_counts> perCpu(static_cast<size_t>(cpus));
  __u32 zero = 0;
  if (bpf_map_lookup_elem(fd, &zero, perCpu.data()) != 0) return false;
  counts = {};
  for (const mark_counts& cpu : perCpu) {
    counts.marked += cpu.marked;
    counts.refused += cpu.refused;
  }
  return true;
}

}  // namespace provd
