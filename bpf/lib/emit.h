/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every program shares: its ring buffer, its per-probe loss counters, the daemon's own tgid
 * (skipped, or the sensor would watch provd write its own rows) and the common record header.
 * Each program object has its own provd_loss. The process, file, network and privilege objects share
 * one provd_ring (the first loaded creates it, the others reuse it: native/src/program-loader.cc), so
 * the reader sees a thread's records in the order they were sent: an exec before its loader's opens
 * and its exit, which the folder (native/src/record-folder.cc) relies on. TLS data has its own ring.
 */
#ifndef PROVD_EMIT_H
#define PROVD_EMIT_H

#include "event.h"

#ifndef RING_BYTES
#define RING_BYTES (16 * 1024 * 1024) /* the shared ring: the four 4 MiB rings it replaced */
#endif

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RING_BYTES);
} provd_ring SEC(".maps");

/* index: the probe's number within its program (its PROBE_* value) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, struct loss_counts);
} provd_loss SEC(".maps");

/* set before load: the daemon's own process, whose events are not captured */
const volatile __u32 self_tgid = 0;
/* set before load: 1 captures only processes in a bound cgroup (or below it) or bound themselves */
const volatile __u32 capture_bound = 0;

/*
 * What user space binds (src/sensor/capture-filter.ts): cgroup v2 ids, and process ids whose
 * children the process program adds as they fork. One pair of maps for every program object: the
 * loader hands the first object's to the others (native/src/program-loader.cc).
 */
#define BOUND_MAX 16384
#define CGROUP_DEPTH_MAX 16
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BOUND_MAX);
	__type(key, __u64);
	__type(value, __u8);
} provd_bound_cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BOUND_MAX);
	__type(key, __u32);
	__type(value, __u8);
} provd_bound_tgids SEC(".maps");

static __always_inline struct loss_counts *loss_of(__u32 probe)
{
	return bpf_map_lookup_elem(&provd_loss, &probe);
}

static __always_inline void count_ring_full(__u32 probe)
{
	struct loss_counts *loss = loss_of(probe);
	if (loss)
		loss->ring_full++;
}

static __always_inline void count_truncated(__u32 probe)
{
	struct loss_counts *loss = loss_of(probe);
	if (loss)
		loss->truncated++;
}

static __always_inline void count_pending_full(__u32 probe)
{
	struct loss_counts *loss = loss_of(probe);
	if (loss)
		loss->pending_full++;
}

static __always_inline bool is_self(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == self_tgid;
}

/* whether a binding covers this process: its tgid, its cgroup or a cgroup above it is bound */
static __always_inline bool is_bound(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (bpf_map_lookup_elem(&provd_bound_tgids, &tgid))
		return true;
	__u64 cgroup = bpf_get_current_cgroup_id();
	if (bpf_map_lookup_elem(&provd_bound_cgroups, &cgroup))
		return true;
	/* a bound cgroup's descendants (a pod's containers): level 0 is the root, never bound */
	for (int level = 1; level < CGROUP_DEPTH_MAX; level++) {
		__u64 ancestor = bpf_get_current_ancestor_cgroup_id(level);
		if (ancestor == 0 || ancestor == cgroup)
			break;
		if (bpf_map_lookup_elem(&provd_bound_cgroups, &ancestor))
			return true;
	}
	return false;
}

/* whether this process is captured: always, unless capture_bound and nothing binds it */
static __always_inline bool is_captured(void)
{
	return !capture_bound || is_bound();
}

/* whether the event `probe` is about to capture is skipped: the daemon's own, or filtered (counted) */
static __always_inline bool skip_event(__u32 probe)
{
	if (is_self())
		return true;
	if (is_captured())
		return false;
	struct loss_counts *loss = loss_of(probe);
	if (loss)
		loss->filtered++;
	return true;
}

/* reserves a record of type T for probe `probe`, counting a full ring; NULL when there is no room */
#define reserve_record(T, probe)                                               \
	({                                                                     \
		T *__record = bpf_ringbuf_reserve(&provd_ring, sizeof(T), 0); \
		if (!__record)                                                 \
			count_ring_full(probe);                                \
		__record;                                                      \
	})

static __always_inline void fill_header(struct event_header *header, __u16 op, __u16 size)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	__u64 ids = bpf_get_current_uid_gid();

	header->op = op;
	header->size = size;
	header->flags = 0;
	header->ktime_ns = bpf_ktime_get_ns();
	header->cgroup_id = bpf_get_current_cgroup_id();
	header->tid = (__u32)id;
	header->tgid = id >> 32;
	header->ppid = BPF_CORE_READ(task, real_parent, tgid);
	header->uid = (__u32)ids;
	header->gid = ids >> 32;
	header->reserved = 0;
	bpf_get_current_comm(header->comm, sizeof(header->comm));
}

/*
 * Whether a record sent now wakes the reader. Waking it for each record costs the CPU that sends it
 * an interrupt and a wakeup (bench:sensor: the workload 1.80x slower with the sensor on, 1.52x
 * without them), and polling on a timer costs a quiet host a wakeup every few milliseconds. So the
 * reader is woken by the record that finds the ring empty (it may be asleep: `own_bytes` are this
 * record's, with the ring's 8-byte record header), or once an eighth of the ring waits; after a wakeup
 * it lets a burst gather for 10 ms before it reads again (native/src/ring-reader.cc). Two CPUs that
 * send at once may each see the other's record and wake no one: the reader also reads every second.
 */
static __always_inline __u64 wakeup_flag(__u64 own_bytes)
{
	__u64 waiting = bpf_ringbuf_query(&provd_ring, BPF_RB_AVAIL_DATA);
	return waiting <= own_bytes || waiting >= RING_BYTES / 8 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* the ring bytes a record of `size` takes, its header included */
#define ring_bytes(size) ((((__u64)(size)) + 8 + 7) & ~7ull)

/* sends the record of `size` reserved bytes; one flagged truncated is counted as such */
static __always_inline void submit_record(struct event_header *header, __u32 probe, __u64 size)
{
	if (header->flags & RECORD_TRUNCATED)
		count_truncated(probe);
	bpf_ringbuf_submit(header, wakeup_flag(ring_bytes(size)));
}

/* reads a user string into a fixed field: its length without the NUL, flagging a cut one */
static __always_inline __u32 read_user_path(struct event_header *header, char *field, const char *from)
{
	long read = bpf_probe_read_user_str(field, PATH_MAX_BYTES, from);
	if (read == PATH_MAX_BYTES)
		header->flags |= RECORD_TRUNCATED; /* full: the path may go on */
	if (read < 0) {
		/* a page not faulted in yet cannot be read here: the path is lost, and counted as cut */
		header->flags |= RECORD_UNREADABLE | RECORD_TRUNCATED;
		field[0] = 0;
	}
	return read > 0 ? read - 1 : 0;
}

#endif
