#include "sensor.h"

#include <algorithm>

#include <bpf/bpf.h>

#include <cstdlib>
#include <ctime>
#include <linux/types.h>
#include <unistd.h>

#include "event.h"
#include "mark-maps.h"

namespace provd {

namespace {

uint32_t requireUint(const Napi::Object& options, const char* name) {
  Napi::Value value = options.Get(name);
  if (!value.IsNumber()) throw Napi::TypeError::New(options.Env(), std::string("option ") + name + " must be a number");
  return value.As<Napi::Number>().Uint32Value();
}

// The times the kernel skipped the program because another BPF program was running on its CPU
// (bpf_prog_info.recursion_misses): events the probe never saw. 0 once unloaded.
uint64_t recursionMisses(const ProbeReport& report) {
  if (!report.attached || report.programFd < 0) return 0;
  bpf_prog_info info{};
  uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(report.programFd, &info, &length) != 0) return 0;
  return info.recursion_misses;
}

int64_t clockNs(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000ll + now.tv_nsec;
}

}  // namespace

// Loads and attaches on a libuv thread: the verifier takes tens of milliseconds per program.
class StartWorker : public Napi::AsyncWorker {
 public:
  StartWorker(Napi::Env env, Sensor* sensor)
      : Napi::AsyncWorker(env), sensor_(sensor), deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise promise() { return deferred_.Promise(); }

  void Execute() override { result_ = loadPrograms(sensor_->selfTgid_, sensor_->captureBound_, sensor_->markCgroupRoot_); }
  void OnOK() override {
    sensor_->starting_ = false;
    sensor_->loaded_ = std::move(result_);
    if (sensor_->closed_) {
      unloadPrograms(sensor_->loaded_);
      deferred_.Resolve(Env().Undefined());
      return;
    }
    try {
      sensor_->startReading(Env());
      deferred_.Resolve(Env().Undefined());
    } catch (const std::exception& error) {
      unloadPrograms(sensor_->loaded_);
      deferred_.Reject(Napi::Error::New(Env(), error.what()).Value());
    }
  }

 private:
  Sensor* sensor_;
  Napi::Promise::Deferred deferred_;
  LoadResult result_;
};

// Attaches uprobes on a libuv thread: libbpf reads the target's ELF symbols, which for a large
// binary (node: ~100 MB) takes a while.
class AttachWorker : public Napi::AsyncWorker {
 public:
  AttachWorker(Napi::Env env, Sensor* sensor, std::string binary, std::vector<UprobeRequest> requests)
      : Napi::AsyncWorker(env),
        sensor_(sensor),
        binary_(std::move(binary)),
        requests_(std::move(requests)),
        deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise promise() { return deferred_.Promise(); }

  void Execute() override {
    std::lock_guard<std::mutex> hold(sensor_->attaching_);
    for (LoadedObject& object : sensor_->loaded_.objects) {
      if (object.perTarget && !sensor_->closed_) reports_ = attachUprobes(object, binary_, requests_);
    }
    if (reports_.empty()) {
      for (const UprobeRequest& request : requests_)
        reports_.push_back({"tls", request.program, false, sensor_->closed_ ? "the sensor is closed" : "the TLS object is not loaded"});
    }
  }
  void OnOK() override {
    Napi::Env env = Env();
    Napi::Array reports = Napi::Array::New(env, reports_.size());
    for (size_t i = 0; i < reports_.size(); i++) {
      Napi::Object report = Napi::Object::New(env);
      report.Set("program", reports_[i].program);
      report.Set("probe", reports_[i].probe);
      report.Set("attached", reports_[i].attached);
      report.Set("error", reports_[i].error.empty() ? env.Null() : Napi::String::New(env, reports_[i].error));
      reports.Set(i, report);
    }
    deferred_.Resolve(reports);
  }

 private:
  Sensor* sensor_;
  std::string binary_;
  std::vector<UprobeRequest> requests_;
  Napi::Promise::Deferred deferred_;
  std::vector<ProbeReport> reports_;
};

Napi::Function Sensor::Define(Napi::Env env) {
  return DefineClass(env, "Sensor",
                     {
                         InstanceMethod<&Sensor::Start>("start"),
                         InstanceMethod<&Sensor::AttachUprobes>("attachUprobes"),
                         InstanceMethod<&Sensor::Probes>("probes"),
                         InstanceMethod<&Sensor::Loss>("loss"),
                         InstanceMethod<&Sensor::Stats>("stats"),
                         InstanceMethod<&Sensor::ExecsSince>("execsSince"),
                         InstanceMethod<&Sensor::ExecLoss>("execLoss"),
                         InstanceMethod<&Sensor::HandOver>("handOver"),
                         InstanceMethod<&Sensor::Bind>("bind"),
                         InstanceMethod<&Sensor::MarkConnects>("markConnects"),
                         InstanceMethod<&Sensor::MarkCounts>("markCounts"),
                         InstanceMethod<&Sensor::Close>("close"),
                     });
}

Sensor::Sensor(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Sensor>(info) {
  if (info.Length() < 2 || !info[0].IsObject() || !info[1].IsFunction())
    throw Napi::TypeError::New(info.Env(), "new Sensor(options, onBatch): options must be an object and onBatch a function");
  Napi::Object options = info[0].As<Napi::Object>();
  selfTgid_ = requireUint(options, "selfTgid");
  captureBound_ = options.Get("captureBound").ToBoolean();
  if (options.Get("markCgroupRoot").IsString()) markCgroupRoot_ = options.Get("markCgroupRoot").As<Napi::String>();
  limits_ = {requireUint(options, "batchRecords"), requireUint(options, "batchBytes"), requireUint(options, "flushMs"),
             options.Has("stallMs") ? requireUint(options, "stallMs") : 0};
  if (options.Has("execHistoryPids")) execs_.setPidsMax(requireUint(options, "execHistoryPids"));
  onBatch_ = Napi::Persistent(info[1].As<Napi::Function>());
  if (info.Length() > 2 && info[2].IsFunction()) onTlsBatch_ = Napi::Persistent(info[2].As<Napi::Function>());
}

Sensor::~Sensor() {
  if (reader_) reader_->stop();
  if (tlsReader_) tlsReader_->stop();
  unloadPrograms(loaded_);
}

Napi::Value Sensor::Start(const Napi::CallbackInfo& info) {
  if (starting_ || reader_ || closed_) throw Napi::Error::New(info.Env(), "failed to start: the sensor was started or closed already");
  starting_ = true;
  auto* worker = new StartWorker(info.Env(), this);
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

void Sensor::startReading(Napi::Env env) {
  std::vector<int> fds;
  std::vector<int> tlsFds;
  for (const LoadedObject& object : loaded_.objects) {
    std::vector<int>& into = object.perTarget ? tlsFds : fds;
    // objects that share a ring (program-loader.cc) are read once
    if (std::find(into.begin(), into.end(), object.ringFd) == into.end()) into.push_back(object.ringFd);
  }
  // nothing loaded: the probe reports say why
  if (!fds.empty()) reader_ = std::make_unique<RingReader>(env, fds, limits_, onBatch_.Value(), &execs_);
  if (!tlsFds.empty() && !onTlsBatch_.IsEmpty())
    tlsReader_ = std::make_unique<RingReader>(env, tlsFds, limits_, onTlsBatch_.Value());
}

Napi::Value Sensor::AttachUprobes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsArray())
    throw Napi::TypeError::New(env, "attachUprobes(binary, requests): binary must be a string and requests an array");
  std::vector<UprobeRequest> requests;
  Napi::Array given = info[1].As<Napi::Array>();
  for (uint32_t i = 0; i < given.Length(); i++) {
    Napi::Value item = given.Get(i);
    if (!item.IsObject()) throw Napi::TypeError::New(env, "attachUprobes: each request must be an object");
    Napi::Object request = item.As<Napi::Object>();
    if (!request.Get("program").IsString() || !request.Get("where").IsString())
      throw Napi::TypeError::New(env, "attachUprobes: each request needs a string program and where");
    Napi::Value offset = request.Get("offset");
    double at = offset.IsNumber() ? offset.As<Napi::Number>().DoubleValue() : -1;
    if (!(at >= 0 && at <= 0xffffffffffff && at == static_cast<double>(static_cast<uint64_t>(at))))
      throw Napi::TypeError::New(env, "attachUprobes: a request's offset must be a file offset, an integer from 0 to 2^48 - 1");
    requests.push_back({request.Get("program").As<Napi::String>(), request.Get("where").As<Napi::String>(),
                        request.Get("retprobe").ToBoolean(), static_cast<uint64_t>(at)});
  }
  auto* worker = new AttachWorker(env, this, info[0].As<Napi::String>(), std::move(requests));
  Napi::Promise promise = worker->promise();
  worker->Queue();
  return promise;
}

Napi::Value Sensor::Probes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array probes = Napi::Array::New(env, loaded_.probes.size());
  for (size_t i = 0; i < loaded_.probes.size(); i++) {
    const ProbeReport& report = loaded_.probes[i];
    Napi::Object probe = Napi::Object::New(env);
    probe.Set("program", report.program);
    probe.Set("probe", report.probe);
    probe.Set("attached", report.attached);
    probe.Set("error", report.error.empty() ? env.Null() : Napi::String::New(env, report.error));
    probe.Set("missed", Napi::Number::New(env, static_cast<double>(recursionMisses(report))));
    probes.Set(i, probe);
  }
  return probes;
}

Napi::Value Sensor::Loss(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array counts = Napi::Array::New(env);
  int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) throw Napi::Error::New(env, "failed to read loss counters: the possible CPUs are unknown");
  std::vector<loss_counts> perCpu(static_cast<size_t>(cpus));
  uint32_t at = 0;
  for (const LoadedObject& object : loaded_.objects) {
    for (uint32_t index = 0; index < 16; index++) {
      if (bpf_map_lookup_elem(object.lossFd, &index, perCpu.data()) != 0) continue;
      uint64_t ringFull = 0, truncated = 0, pendingFull = 0, filtered = 0;
      for (const loss_counts& cpu : perCpu) {
        ringFull += cpu.ring_full;
        truncated += cpu.truncated;
        pendingFull += cpu.pending_full;
        filtered += cpu.filtered;
      }
      Napi::Object count = Napi::Object::New(env);
      count.Set("program", object.name);
      count.Set("index", index);
      count.Set("ringFull", Napi::Number::New(env, static_cast<double>(ringFull)));
      count.Set("truncated", Napi::Number::New(env, static_cast<double>(truncated)));
      count.Set("pendingFull", Napi::Number::New(env, static_cast<double>(pendingFull)));
      count.Set("filtered", Napi::Number::New(env, static_cast<double>(filtered)));
      counts.Set(at++, count);
    }
  }
  return counts;
}

Napi::Value Sensor::ExecLoss(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) throw Napi::Error::New(env, "failed to read loss counters: the possible CPUs are unknown");
  std::vector<loss_counts> perCpu(static_cast<size_t>(cpus));
  uint32_t probeExec = 0;  // must match bpf/process.bpf.c: PROBE_EXEC
  uint64_t lost = 0;
  for (const LoadedObject& object : loaded_.objects) {
    if (object.name != "process" || bpf_map_lookup_elem(object.lossFd, &probeExec, perCpu.data()) != 0) continue;
    for (const loss_counts& cpu : perCpu) lost += cpu.ring_full + cpu.pending_full;
  }
  return Napi::Number::New(env, static_cast<double>(lost));
}

Napi::Value Sensor::Bind(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsString())
    throw Napi::TypeError::New(env, "bind(kind, id): kind and id must be strings");
  std::string kind = info[0].As<Napi::String>();
  std::string text = info[1].As<Napi::String>();
  char* end = nullptr;
  unsigned long long id = strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != 0 || (kind != "cgroup" && kind != "process"))
    throw Napi::TypeError::New(env, "bind(kind, id): kind is cgroup or process, id a decimal number");
  if (loaded_.objects.empty()) return Napi::Boolean::New(env, false);
  const LoadedObject& first = loaded_.objects.front();
  __u8 bound = 1;
  int updated;
  if (kind == "cgroup") {
    __u64 cgroup = id;
    updated = bpf_map_update_elem(first.boundCgroupsFd, &cgroup, &bound, BPF_ANY);
  } else {
    __u32 tgid = static_cast<__u32>(id);
    updated = bpf_map_update_elem(first.boundTgidsFd, &tgid, &bound, BPF_ANY);
  }
  return Napi::Boolean::New(env, updated == 0);
}

Napi::Value Sensor::MarkConnects(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "markConnects(target): target must be an object");
  Napi::Object given = info[0].As<Napi::Object>();
  mark_target target{};
  target.port = requireUint(given, "port");
  target.ip4 = requireUint(given, "ip4");
  Napi::Value ip6 = given.Get("ip6");
  if (!ip6.IsArray() || ip6.As<Napi::Array>().Length() != 4)
    throw Napi::TypeError::New(env, "markConnects(target): ip6 must be an array of four numbers");
  for (uint32_t i = 0; i < 4; i++) target.ip6[i] = ip6.As<Napi::Array>().Get(i).As<Napi::Number>().Uint32Value();
  target.listens_ip6 = given.Get("listensIp6").ToBoolean() ? 1 : 0;
  return Napi::Boolean::New(env, setMarkTarget(loaded_, target));
}

Napi::Value Sensor::MarkCounts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  mark_counts counts{};
  if (!readMarkCounts(loaded_, counts)) return env.Null();
  Napi::Object result = Napi::Object::New(env);
  result.Set("marked", Napi::Number::New(env, static_cast<double>(counts.marked)));
  result.Set("refused", Napi::Number::New(env, static_cast<double>(counts.refused)));
  return result;
}

Napi::Value Sensor::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object stats = Napi::Object::New(env);
  auto set = [&](const char* name, uint64_t value) { stats.Set(name, Napi::Number::New(env, static_cast<double>(value))); };
  uint64_t records = 0, batches = 0, droppedRecords = 0, droppedBatches = 0, malformedRecords = 0, folded = 0;
  std::string failure;
  for (const RingReader* reader : {reader_.get(), tlsReader_.get()}) {
    if (reader == nullptr) continue;
    const ReaderStats& read = reader->stats();
    records += read.records;
    batches += read.batches;
    droppedRecords += read.droppedRecords;
    droppedBatches += read.droppedBatches;
    malformedRecords += read.malformedRecords;
    folded += read.foldedRecords;
    if (failure.empty()) failure = reader->failure();
  }
  set("records", records);
  set("batches", batches);
  set("droppedRecords", droppedRecords);
  set("droppedBatches", droppedBatches);
  set("malformedRecords", malformedRecords);
  set("foldedRecords", folded);
  set("execPids", execs_.size());
  set("execsEvicted", execs_.evicted());
  stats.Set("failure", failure.empty() ? env.Null() : Napi::String::New(env, failure));
  stats.Set("note", loaded_.note.empty() ? env.Null() : Napi::String::New(env, loaded_.note));
  return stats;
}

Napi::Value Sensor::ExecsSince(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsNumber())
    throw Napi::TypeError::New(env, "execsSince(pid, startTicks): pid and startTicks must be numbers");
  if (!reader_ || closed_) return env.Null();
  uint32_t pid = info[0].As<Napi::Number>().Uint32Value();
  double ticks = info[1].As<Napi::Number>().DoubleValue();
  reader_->consumeNow();
  // /proc's start time counts CLOCK_BOOTTIME ticks; records carry CLOCK_MONOTONIC, which a suspend leaves behind
  int64_t boottimeAhead = clockNs(CLOCK_BOOTTIME) - clockNs(CLOCK_MONOTONIC);
  int64_t wallAhead = clockNs(CLOCK_REALTIME) - clockNs(CLOCK_MONOTONIC);
  double startNs = ticks * (1e9 / static_cast<double>(sysconf(_SC_CLK_TCK))) - static_cast<double>(boottimeAhead);
  ExecLookup found = execs_.lookup(pid, startNs <= 0 ? 0 : static_cast<uint64_t>(startNs));
  Napi::Array execs = Napi::Array::New(env, found.execs.size());
  for (size_t i = 0; i < found.execs.size(); i++) {
    Napi::Object exec = Napi::Object::New(env);
    exec.Set("wallNs", Napi::BigInt::New(env, static_cast<int64_t>(found.execs[i].ktimeNs) + wallAhead));
    exec.Set("argv", Napi::String::New(env, found.execs[i].argv));
    exec.Set("truncated", found.execs[i].truncated);
    execs.Set(i, exec);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("execs", execs);
  result.Set("droppedSince", found.droppedSince);
  result.Set("evictedSince", found.evictedSince);
  return result;
}

Napi::Value Sensor::HandOver(const Napi::CallbackInfo& info) {
  uint64_t batches = 0;
  if (!closed_) {
    if (reader_) batches += reader_->handOverNow();
    if (tlsReader_) batches += tlsReader_->handOverNow();
  }
  return Napi::Number::New(info.Env(), static_cast<double>(batches));
}

Napi::Value Sensor::Close(const Napi::CallbackInfo& info) {
  std::lock_guard<std::mutex> hold(attaching_);  // an attach in progress ends first
  closed_ = true;
  if (tlsReader_) {
    detachPrograms(loaded_.objects);
    tlsReader_->stop();
  }
  if (!reader_) {
    if (!starting_) unloadPrograms(loaded_);
    Napi::Promise::Deferred done = Napi::Promise::Deferred::New(info.Env());
    done.Resolve(info.Env().Undefined());
    return done.Promise();
  }
  detachPrograms(loaded_.objects);  // no new records; the rings keep what they hold
  reader_->stop();                  // reads the rings empty and hands over the last batch
  unloadPrograms(loaded_);
  return reader_->drained();
}

}  // namespace provd
