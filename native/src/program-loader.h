// Loads provd's BPF program objects (bpf/*.bpf.c, embedded as skeletons) and attaches each probe
// on its own, so one that cannot attach (a missing symbol, an old kernel) costs only itself.
#pragma once
#include <bpf/libbpf.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace provd {

// One probe (a BPF program) and whether it attached; `error` says why not.
struct ProbeReport {
  std::string program;  // the object, e.g. "process"
  std::string probe;    // the BPF program's name, e.g. "provd_exec"
  bool attached = false;
  std::string error;
  int programFd = -1;  // while loaded: the kernel counts the times it skipped the program here
};

// One loaded object: its ring buffer and loss counters, and the links that keep its probes attached.
struct LoadedObject {
  std::string name;
  bpf_object* object = nullptr;
  bool perTarget = false;  // its programs attach to targets on request (uprobes), not at load
  int ringFd = -1;
  int lossFd = -1;
  int boundCgroupsFd = -1;  // bpf/lib/emit.h: provd_bound_cgroups, shared by every object
  int boundTgidsFd = -1;    // provd_bound_tgids, shared likewise
  std::vector<bpf_link*> links;
  std::function<void()> destroy;
};

// What loading every object gave: the objects that loaded, and a report per probe.
struct LoadResult {
  std::vector<LoadedObject> objects;
  std::vector<ProbeReport> probes;
  std::string note;  // what loading did to the host (mounted tracefs), or why it could not
};

// Opens, loads and attaches every object; `selfTgid`'s own events are skipped in the kernel, and
// with `captureBound` those of every process nothing binds (bpf/lib/emit.h: is_captured). The
// connect mark (bpf/connect-mark.bpf.c) attaches to the cgroup v2 root `markCgroupRoot` ("": none).
LoadResult loadPrograms(uint32_t selfTgid, bool captureBound, const std::string& markCgroupRoot);

// One uprobe to attach: a program of a per-target object at `offset` in a binary or library's file
// (an instruction's first byte: src/sensor/tls-targets.ts finds it), `where` naming it in errors.
struct UprobeRequest {
  std::string program;
  std::string where;
  bool retprobe = false;
  uint64_t offset = 0;
};

// Attaches `requests` in `binary` for every process that maps it; each request's report says
// whether it attached and why not. Their links join the object's, so detaching ends them too.
std::vector<ProbeReport> attachUprobes(LoadedObject& object, const std::string& binary,
                                       const std::vector<UprobeRequest>& requests);

// Detaches every probe: no new records; the ring buffers keep what they hold.
void detachPrograms(std::vector<LoadedObject>& objects);

// Detaches every probe and frees every object; the probes' reports stay, without their programs.
void unloadPrograms(LoadResult& loaded);

}  // namespace provd
