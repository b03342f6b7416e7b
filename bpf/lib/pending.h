/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Syscall records in two halves: the entry fills a record (arguments, the caller's identity, the
 * capture time) and keeps it per thread; the exit adds the syscall's result and sends it. A plain
 * hash, not an LRU one: an LRU map makes room by evicting a call in flight, silently, while a full
 * hash refuses the new one, which is counted (pending_full). A syscall interrupted by a fatal
 * signal still passes its exit tracepoint, so entries do not outlive their threads.
 */
#ifndef PROVD_PENDING_H
#define PROVD_PENDING_H

#include "emit.h"

#define PENDING_MAX 8192

/* the records of calls in flight, by thread */
#define PENDING_MAP(name, T)                                \
	struct {                                            \
		__uint(type, BPF_MAP_TYPE_HASH);            \
		__uint(max_entries, PENDING_MAX);           \
		__type(key, __u32);                         \
		__type(value, T);                           \
	} name SEC(".maps")

/* room to build one record off the 512-byte stack */
#define SCRATCH_MAP(name, T)                                \
	struct {                                            \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);    \
		__uint(max_entries, 1);                     \
		__type(key, __u32);                         \
		__type(value, T);                           \
	} name SEC(".maps")

static __always_inline void *scratch_record(void *scratch_map)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(scratch_map, &zero);
}

/* keeps the record built in scratch until this thread's syscall returns */
static __always_inline void keep_pending(void *pending_map, void *record, __u32 probe)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (bpf_map_update_elem(pending_map, &tid, record, BPF_ANY) != 0)
		count_pending_full(probe);
}

/* at a syscall's exit: sends the record its entry kept, with the result `ret` */
#define send_pending(pending_map, T, probe, ret)                                          \
	({                                                                                \
		__u32 __tid = (__u32)bpf_get_current_pid_tgid();                          \
		T *__kept = bpf_map_lookup_elem(&pending_map, &__tid);                    \
		if (__kept) {                                                             \
			T *__record = reserve_record(T, probe);                           \
			if (__record) {                                                   \
				bpf_probe_read_kernel(__record, sizeof(T), __kept);       \
				__record->result = (__s32)(ret);                          \
				submit_record(&__record->header, probe, sizeof(T));      \
			}                                                                 \
			bpf_map_delete_elem(&pending_map, &__tid);                        \
		}                                                                         \
	})

#endif
