#include "program-loader.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>

#include "bpf-log.h"
#include "connect-mark.skel.h"
#include "file.skel.h"
#include "network.skel.h"
#include "privilege.skel.h"
#include "process.skel.h"
#include "tls.skel.h"

namespace provd {

namespace {

std::string reason(int error, const std::string& log) {
  std::string text = strerror(error < 0 ? -error : error);
  return log.empty() ? text : text + ": " + log;
}

// Every probe of `object` reported as not attached, for `why`.
void reportAll(bpf_object* object, const char* name, const std::string& why, LoadResult& result) {
  bpf_program* program;
  bpf_object__for_each_program(program, object) {
    result.probes.push_back({name, bpf_program__name(program), false, why});
  }
}

template <typename Skeleton>
void loadObject(const char* name, Skeleton* (*open)(), int (*load)(Skeleton*), void (*destroy)(Skeleton*),
                uint32_t selfTgid, bool captureBound, LoadResult& result, bool perTarget = false,
                int cgroupFd = -1) {
  takeLibbpfLog();
  Skeleton* skeleton = open();
  if (skeleton == nullptr) {
    result.probes.push_back({name, "*", false, "failed to open: " + reason(errno, takeLibbpfLog())});
    return;
  }
  skeleton->rodata->self_tgid = selfTgid;
  skeleton->rodata->capture_bound = captureBound ? 1 : 0;
  // the bound maps are one pair for all objects: the first loaded object's
  int shared = 0;
  for (const LoadedObject& first : result.objects) {
    shared = bpf_map__reuse_fd(skeleton->maps.provd_bound_cgroups, first.boundCgroupsFd);
    if (shared == 0) shared = bpf_map__reuse_fd(skeleton->maps.provd_bound_tgids, first.boundTgidsFd);
    break;
  }
  // and so is the ring of every object but the per-target ones (TLS data): one ring keeps a thread's
  // records in the order they were sent, across objects (bpf/lib/emit.h)
  for (const LoadedObject& first : result.objects) {
    if (shared != 0 || perTarget || first.perTarget) continue;
    shared = bpf_map__reuse_fd(skeleton->maps.provd_ring, first.ringFd);
    break;
  }
  // an object left with maps of its own would write to a ring nobody reads, or filter by binds
  // nobody makes: reported as not attached instead
  if (shared != 0) {
    reportAll(skeleton->obj, name, "failed to share the first object's maps: " + reason(shared, takeLibbpfLog()),
              result);
    destroy(skeleton);
    return;
  }
  int loaded = load(skeleton);
  if (loaded != 0) {
    reportAll(skeleton->obj, name, "failed to load: " + reason(loaded, takeLibbpfLog()), result);
    destroy(skeleton);
    return;
  }
  LoadedObject object;
  object.name = name;
  object.object = skeleton->obj;
  object.perTarget = perTarget;
  object.ringFd = bpf_map__fd(skeleton->maps.provd_ring);
  object.lossFd = bpf_map__fd(skeleton->maps.provd_loss);
  object.boundCgroupsFd = bpf_map__fd(skeleton->maps.provd_bound_cgroups);
  object.boundTgidsFd = bpf_map__fd(skeleton->maps.provd_bound_tgids);
  object.destroy = [skeleton, destroy] { destroy(skeleton); };
  bpf_program* program;
  bpf_object__for_each_program(program, skeleton->obj) {
    if (perTarget) {  // loaded: ready to attach where targets are found
      result.probes.push_back({name, bpf_program__name(program), true, "", bpf_program__fd(program)});
      continue;
    }
    takeLibbpfLog();
    // cgroup programs (the connect mark) attach to a cgroup, by a link: multi-attach, ended with the daemon
    bpf_link* link = cgroupFd >= 0 ? bpf_program__attach_cgroup(program, cgroupFd) : bpf_program__attach(program);
    if (link == nullptr) {
      result.probes.push_back({name, bpf_program__name(program), false,
                               "failed to attach: " + reason(errno, takeLibbpfLog())});
      continue;
    }
    object.links.push_back(link);
    result.probes.push_back({name, bpf_program__name(program), true, "", bpf_program__fd(program)});
  }
  result.objects.push_back(std::move(object));
}

// Tracepoints are found through tracefs; a host that has not mounted it gets it mounted (root only).
std::string ensureTracefs() {
  struct stat found {};
  if (stat("/sys/kernel/tracing/events", &found) == 0 || stat("/sys/kernel/debug/tracing/events", &found) == 0)
    return "";
  if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0) return "mounted tracefs at /sys/kernel/tracing";
  return std::string("failed to mount tracefs at /sys/kernel/tracing: ") + strerror(errno);
}

// The connect mark attaches to the cgroup v2 root `cgroupRoot` (every process is at or below it);
// without one it is reported as not attached, saying why.
void loadConnectMark(const std::string& cgroupRoot, uint32_t selfTgid, bool captureBound, LoadResult& result) {
  const char* name = "connect_mark";
  if (cgroupRoot.empty()) {
    for (const char* probe : {"provd_mark_connect4", "provd_mark_connect6"})
      result.probes.push_back({name, probe, false, "no cgroup v2 root was given (none is mounted)"});
    return;
  }
  int cgroupFd = open(cgroupRoot.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cgroupFd < 0) {
    std::string why = "failed to open " + cgroupRoot + ": " + strerror(errno);
    for (const char* probe : {"provd_mark_connect4", "provd_mark_connect6"}) result.probes.push_back({name, probe, false, why});
    return;
  }
  loadObject(name, connect_mark_bpf__open, connect_mark_bpf__load, connect_mark_bpf__destroy, selfTgid, captureBound,
             result, false, cgroupFd);
  close(cgroupFd);  // a link holds the cgroup itself
}

}  // namespace

LoadResult loadPrograms(uint32_t selfTgid, bool captureBound, const std::string& markCgroupRoot) {
  LoadResult result;
  result.note = ensureTracefs();
  loadObject("process", process_bpf__open, process_bpf__load, process_bpf__destroy, selfTgid, captureBound, result);
  loadObject("file", file_bpf__open, file_bpf__load, file_bpf__destroy, selfTgid, captureBound, result);
  loadObject("network", network_bpf__open, network_bpf__load, network_bpf__destroy, selfTgid, captureBound, result);
  loadObject("privilege", privilege_bpf__open, privilege_bpf__load, privilege_bpf__destroy, selfTgid, captureBound, result);
  loadObject("tls", tls_bpf__open, tls_bpf__load, tls_bpf__destroy, selfTgid, captureBound, result, true);
  loadConnectMark(markCgroupRoot, selfTgid, captureBound, result);
  return result;
}

std::vector<ProbeReport> attachUprobes(LoadedObject& object, const std::string& binary,
                                       const std::vector<UprobeRequest>& requests) {
  std::vector<ProbeReport> reports;
  for (const UprobeRequest& request : requests) {
    ProbeReport report{object.name, request.program};
    bpf_program* program = bpf_object__find_program_by_name(object.object, request.program.c_str());
    if (program == nullptr) {
      report.error = "no program " + request.program + " in object " + object.name;
      reports.push_back(report);
      continue;
    }
    bpf_uprobe_opts options{};
    options.sz = sizeof(options);
    options.retprobe = request.retprobe;
    takeLibbpfLog();
    // pid -1: every process that maps the file, now or later (a uprobe belongs to the inode)
    bpf_link* link = bpf_program__attach_uprobe_opts(program, -1, binary.c_str(), request.offset, &options);
    if (link == nullptr) {
      report.error = "failed to attach at " + request.where + ": " + reason(errno, takeLibbpfLog());
    } else {
      object.links.push_back(link);
      report.attached = true;
    }
    reports.push_back(report);
  }
  return reports;
}

// Each link's detach waits for an RCU grace period (60-120 ms a link here: 45 links held a stopping
// daemon's main thread 3.6 s); detached side by side, their waits overlap.
void detachPrograms(std::vector<LoadedObject>& objects) {
  std::vector<std::thread> detaching;
  for (LoadedObject& object : objects) {
    for (bpf_link* link : object.links) {
      try {
        detaching.emplace_back([link] { bpf_link__destroy(link); });
      } catch (const std::system_error&) {
        bpf_link__destroy(link);  // no thread to be had: here, in turn
      }
    }
    object.links.clear();
  }
  for (std::thread& thread : detaching) thread.join();
}

void unloadPrograms(LoadResult& loaded) {
  detachPrograms(loaded.objects);
  for (LoadedObject& object : loaded.objects) {
    if (object.destroy) object.destroy();
    object.destroy = nullptr;
  }
  loaded.objects.clear();
  for (ProbeReport& probe : loaded.probes) probe.programFd = -1;  // closed: the number may be reused
}

}  // namespace provd
