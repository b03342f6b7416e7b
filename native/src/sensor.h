// The Sensor class JS sees (src/sensor/binding.ts: NativeSensor): loads the programs, reads their
// rings, reports probes and loss, and closes.
#pragma once
#include <napi.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "program-loader.h"
#include "ring-reader.h"

namespace provd {

class Sensor : public Napi::ObjectWrap<Sensor> {
 public:
  static Napi::Function Define(Napi::Env env);
  // new Sensor({ selfTgid, captureBound?, batchRecords, batchBytes, flushMs, stallMs?, markCgroupRoot? }, onBatch,
  // onTlsBatch?): records of per-target objects (TLS plaintext chunks) come in batches of their own;
  // markCgroupRoot: the cgroup v2 root the connect mark attaches to (bpf/connect-mark.bpf.c)
  explicit Sensor(const Napi::CallbackInfo& info);
  ~Sensor() override;

 private:
  // start(): Promise<void>: loads and attaches every program off the JS thread, then reads the rings
  Napi::Value Start(const Napi::CallbackInfo& info);
  // attachUprobes(binary, [{ program, where, offset, retprobe }]): Promise<{ program, probe, attached, error }[]>:
  // attaches programs of the TLS object at functions of a binary or library, off the JS thread
  Napi::Value AttachUprobes(const Napi::CallbackInfo& info);
  // probes(): { program, probe, attached, error, missed }[]
  Napi::Value Probes(const Napi::CallbackInfo& info);
  // loss(): { program, index, ringFull, truncated, pendingFull, filtered }[], summed over CPUs
  Napi::Value Loss(const Napi::CallbackInfo& info);
  // bind(kind: 'cgroup' | 'process', id: string): boolean: captures that cgroup (and below it) or
  // that process (and the children it forks) with captureBound; false when the map is full
  Napi::Value Bind(const Napi::CallbackInfo& info);
  // execsSince(pid: number, startTicks: number): { execs: { wallNs: bigint, argv: string, truncated: boolean }[],
  // droppedSince, evictedSince } | null: what the process exec'd since it started (its /proc start time, clock
  // ticks after boot), read from the rings first, so every exec the kernel submitted before the call is in it;
  // null when the sensor reads no rings (exec-history.h)
  Napi::Value ExecsSince(const Napi::CallbackInfo& info);
  // execLoss(): number: exec records the kernel dropped so far (the process object's PROBE_EXEC ring_full plus
  // pending_full, summed over CPUs): one map lookup, where loss() reads every probe's
  Napi::Value ExecLoss(const Napi::CallbackInfo& info);
  // handOver(): number: reads the rings now and hands over the batches being built (the TLS ring's
  // too); returns how many batches were queued in all, which sensor.ts waits to see delivered
  Napi::Value HandOver(const Napi::CallbackInfo& info);
  // markConnects({ port, ip4, ip6, listensIp6 }): boolean: bound processes' connects to that listener are marked
  // (port and addresses in network order: bpf/lib/connect-mark.h); false when the mark is not loaded
  Napi::Value MarkConnects(const Napi::CallbackInfo& info);
  // markCounts(): { marked, refused } | null: connects the mark marked and refused; null when it is not loaded
  Napi::Value MarkCounts(const Napi::CallbackInfo& info);
  // stats(): { records, batches, droppedRecords, droppedBatches, malformedRecords, execPids, execsEvicted,
  // failure, note }
  Napi::Value Stats(const Napi::CallbackInfo& info);
  // close(): Promise<void>: detaches every probe and stops reading once the rings are emptied;
  // resolves when the reader's thread-safe function is finalized, which may be before its last
  // queued batches reach JS (measured): callers count them with stats().batches; idempotent
  Napi::Value Close(const Napi::CallbackInfo& info);

  void startReading(Napi::Env env);
  friend class StartWorker;
  friend class AttachWorker;

  uint32_t selfTgid_;
  bool captureBound_ = false;
  std::string markCgroupRoot_;
  BatchLimits limits_;
  Napi::FunctionReference onBatch_;
  Napi::FunctionReference onTlsBatch_;
  LoadResult loaded_;
  ExecHistory execs_;
  std::unique_ptr<RingReader> reader_;
  std::unique_ptr<RingReader> tlsReader_;
  // held while uprobes attach off the JS thread, so close() never frees an object in use
  std::mutex attaching_;
  bool starting_ = false;
  std::atomic<bool> closed_{false};
};

}  // namespace provd
