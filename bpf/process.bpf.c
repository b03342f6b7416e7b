// SPDX-License-Identifier: GPL-2.0
/* Process lifecycle: exec (the new image and its argv) and exit (status and signal). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "emit.h"
#include "dir-path.h"

char LICENSE[] SEC("license") = "GPL";

/* keep the record types in the object's BTF: test/sensor/struct-drift.test.ts reads them there */
struct exec_event *unused_exec_event __attribute__((unused));
struct exit_event *unused_exit_event __attribute__((unused));

/* probe numbers, for provd_loss: must match src/sensor/probes.ts */
enum { PROBE_EXEC = 0, PROBE_EXIT = 1 };

/* whether an absolute exec name is a file descriptor's, which does not say which file runs */
static __always_inline bool names_descriptor(const char *name)
{
	bool dev_fd = name[1] == 'd' && name[2] == 'e' && name[3] == 'v' && name[4] == '/' && name[5] == 'f' &&
		      name[6] == 'd' && name[7] == '/';
	bool proc = name[1] == 'p' && name[2] == 'r' && name[3] == 'o' && name[4] == 'c' && name[5] == '/';
	return dev_fd || proc;
}

/* sched_process_exec fires once the new image is in place: its argv is in the new mm already */
SEC("tp/sched/sched_process_exec")
int provd_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	if (skip_event(PROBE_EXEC))
		return 0;
	struct exec_event *event = reserve_record(struct exec_event, PROBE_EXEC);
	if (!event)
		return 0;
	unsigned int filename_at = ctx->__data_loc_filename & 0xFFFF;
	long read = bpf_probe_read_kernel_str(event->filename, sizeof(event->filename),
					      (void *)ctx + filename_at);
	event->filename_size = read > 0 ? read - 1 : 0;
	bool truncated = read == sizeof(event->filename); /* full: the name may go on */
	event->header.flags = 0;
	event->reserved = 0;
	event->base_size = 0;
	/*
	 * A relative name (./tool) is relative to the working directory, which exec keeps: its base is
	 * that directory (not the new image's file: for a script, that is its interpreter). A
	 * descriptor's name (/dev/fd/3 of fexecve, or /proc/self/fd/3) hides the file, as a memfd payload
	 * does: its base is the file the new image runs from.
	 */
	if (event->filename[0] != '/') {
		event->base_size = read_dir_path(&event->header, event->base, AT_FDCWD_VALUE);
	} else if (names_descriptor(event->filename)) {
		struct task_struct *current = (struct task_struct *)bpf_get_current_task();
		struct file *exe = BPF_CORE_READ(current, mm, exe_file);
		event->base_size = read_path(&event->header, event->base, exe ? (struct path *)&exe->f_path : 0);
	}

	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	unsigned long arg_start = BPF_CORE_READ(task, mm, arg_start);
	unsigned long arg_end = BPF_CORE_READ(task, mm, arg_end);
	unsigned long argv_size = arg_end > arg_start ? arg_end - arg_start : 0;
	if (argv_size > ARGV_MAX_BYTES) {
		argv_size = ARGV_MAX_BYTES;
		truncated = true;
	}
	if (argv_size > 0 && bpf_probe_read_user(event->argv, argv_size, (void *)arg_start) != 0)
		argv_size = 0;
	event->argv_size = argv_size;

	__u32 flags = event->header.flags; /* read_path's, which fill_header resets */
	fill_header(&event->header, OP_EXEC,
		    offsetof(struct exec_event, argv) + event->argv_size);
	event->header.flags |= flags;
	if (truncated)
		event->header.flags |= RECORD_TRUNCATED;
	submit_record(&event->header, PROBE_EXEC, sizeof(*event));
	return 0;
}

/* a process ends when its thread-group leader exits; other threads' exits are not reported */
SEC("tp/sched/sched_process_exit")
int provd_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	if ((__u32)id != id >> 32 || skip_event(PROBE_EXIT))
		goto unbind;
	struct exit_event *event = reserve_record(struct exit_event, PROBE_EXIT);
	if (!event)
		goto unbind;
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	int code = BPF_CORE_READ(task, exit_code);
	event->exit_code = (code >> 8) & 0xff;
	event->signal = code & 0x7f;
	fill_header(&event->header, OP_EXIT, sizeof(*event));
	submit_record(&event->header, PROBE_EXIT, sizeof(*event));
unbind:
	/* a bound process that ends is bound no more (its id may be reused) */
	if ((__u32)id == id >> 32) {
		__u32 tgid = id >> 32;
		bpf_map_delete_elem(&provd_bound_tgids, &tgid);
	}
	return 0;
}

/*
 * A bound process's children are bound from their first instant (threads share its id), in every
 * capture mode: the capture filter (capture_bound) and the connect mark both read the bound set.
 */
SEC("raw_tp/sched_process_fork")
int provd_fork(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 parent = bpf_get_current_pid_tgid() >> 32;
	if (!bpf_map_lookup_elem(&provd_bound_tgids, &parent))
		return 0;
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 pid = BPF_CORE_READ(child, pid);
	__u8 bound = 1;
	/* a new thread shares its process's id: only a new process is added */
	if (pid == BPF_CORE_READ(child, tgid))
		bpf_map_update_elem(&provd_bound_tgids, &pid, &bound, BPF_NOEXIST);
	return 0;
}
