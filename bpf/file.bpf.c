// SPDX-License-Identifier: GPL-2.0
/*
 * File activity: open, rename and unlink attempts, with the paths as the caller gave them, the
 * directory a relative one is relative to (the caller's working directory or its dirfd's), and what
 * the kernel answered.
 * Tracepoints, not fentry or LSM hooks: those need BPF trampolines, which locked-down kernels refuse.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pending.h"
#include "dir-path.h"

char LICENSE[] SEC("license") = "GPL";

struct file_open_event *unused_file_open_event __attribute__((unused));
struct file_rename_event *unused_file_rename_event __attribute__((unused));
struct file_unlink_event *unused_file_unlink_event __attribute__((unused));

/* probe numbers, for provd_loss: must match src/sensor/probes.ts */
enum { PROBE_OPEN = 0, PROBE_RENAME = 1, PROBE_UNLINK = 2 };

SCRATCH_MAP(open_scratch, struct file_open_event);
SCRATCH_MAP(rename_scratch, struct file_rename_event);
SCRATCH_MAP(unlink_scratch, struct file_unlink_event);
PENDING_MAP(pending_open, struct file_open_event);
PENDING_MAP(pending_rename, struct file_rename_event);
PENDING_MAP(pending_unlink, struct file_unlink_event);

static __always_inline int keep_open(int dirfd, const char *path, __u32 flags, __u32 mode)
{
	if (skip_event(PROBE_OPEN))
		return 0;
	struct file_open_event *event = scratch_record(&open_scratch);
	if (!event)
		return 0;
	fill_header(&event->header, OP_FILE_OPEN, sizeof(*event));
	event->result = 0;
	event->flags = flags;
	event->mode = mode;
	event->path_size = read_user_path(&event->header, event->path, path);
	event->base_size = read_base(&event->header, event->base, event->path, dirfd);
	event->reserved = 0;
	event->header.size = offsetof(struct file_open_event, path) + event->path_size;
	keep_pending(&pending_open, event, PROBE_OPEN);
	return 0;
}

/*
 * At an open's exit: a path that could not be read at entry (not paged in) is recovered from the
 * file the call opened, when it opened one: the record's base then holds the file's own path.
 */
static __always_inline void send_open(long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct file_open_event *kept = bpf_map_lookup_elem(&pending_open, &tid);
	if (kept && ret >= 0 && (kept->header.flags & RECORD_UNREADABLE)) {
		kept->header.flags &= ~(RECORD_TRUNCATED | RECORD_BASE_CUT);
		kept->base_size = read_dir_path(&kept->header, kept->base, (int)ret);
		if (kept->header.flags & RECORD_BASE_CUT)
			kept->header.flags |= RECORD_TRUNCATED;
	}
	send_pending(pending_open, struct file_open_event, PROBE_OPEN, ret);
}

SEC("tp/syscalls/sys_enter_open")
int provd_open_enter(struct trace_event_raw_sys_enter *ctx)
{
	return keep_open(AT_FDCWD_VALUE, (const char *)ctx->args[0], (__u32)ctx->args[1], (__u32)ctx->args[2]);
}

SEC("tp/syscalls/sys_exit_open")
int provd_open_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_open(ctx->ret);
	return 0;
}

SEC("tp/syscalls/sys_enter_openat")
int provd_openat_enter(struct trace_event_raw_sys_enter *ctx)
{
	return keep_open((int)ctx->args[0], (const char *)ctx->args[1], (__u32)ctx->args[2], (__u32)ctx->args[3]);
}

SEC("tp/syscalls/sys_exit_openat")
int provd_openat_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_open(ctx->ret);
	return 0;
}

/* openat2(dfd, path, struct open_how *how, size): the flags and mode are in `how` */
SEC("tp/syscalls/sys_enter_openat2")
int provd_openat2_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct open_how how = {};
	bpf_probe_read_user(&how, sizeof(how), (const void *)ctx->args[2]);
	return keep_open((int)ctx->args[0], (const char *)ctx->args[1], (__u32)how.flags, (__u32)how.mode);
}

SEC("tp/syscalls/sys_exit_openat2")
int provd_openat2_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_open(ctx->ret);
	return 0;
}

static __always_inline int keep_rename(int old_dirfd, const char *old_path, int new_dirfd, const char *new_path,
				       __u32 flags)
{
	if (skip_event(PROBE_RENAME))
		return 0;
	struct file_rename_event *event = scratch_record(&rename_scratch);
	if (!event)
		return 0;
	fill_header(&event->header, OP_FILE_RENAME, sizeof(*event));
	event->result = 0;
	event->flags = flags;
	event->old_size = read_user_path(&event->header, event->old_path, old_path);
	event->new_size = read_user_path(&event->header, event->new_path, new_path);
	event->old_base_size = read_base(&event->header, event->old_base, event->old_path, old_dirfd);
	event->new_base_size = read_base(&event->header, event->new_base, event->new_path, new_dirfd);
	keep_pending(&pending_rename, event, PROBE_RENAME);
	return 0;
}

SEC("tp/syscalls/sys_enter_rename")
int provd_rename_enter(struct trace_event_raw_sys_enter *ctx)
{
	return keep_rename(AT_FDCWD_VALUE, (const char *)ctx->args[0], AT_FDCWD_VALUE, (const char *)ctx->args[1], 0);
}

SEC("tp/syscalls/sys_exit_rename")
int provd_rename_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_pending(pending_rename, struct file_rename_event, PROBE_RENAME, ctx->ret);
	return 0;
}

SEC("tp/syscalls/sys_enter_renameat")
int provd_renameat_enter(struct trace_event_raw_sys_enter *ctx)
{
	return keep_rename((int)ctx->args[0], (const char *)ctx->args[1], (int)ctx->args[2], (const char *)ctx->args[3], 0);
}

SEC("tp/syscalls/sys_exit_renameat")
int provd_renameat_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_pending(pending_rename, struct file_rename_event, PROBE_RENAME, ctx->ret);
	return 0;
}

SEC("tp/syscalls/sys_enter_renameat2")
int provd_renameat2_enter(struct trace_event_raw_sys_enter *ctx)
{
	return keep_rename((int)ctx->args[0], (const char *)ctx->args[1], (int)ctx->args[2], (const char *)ctx->args[3],
			   (__u32)ctx->args[4]);
}

SEC("tp/syscalls/sys_exit_renameat2")
int provd_renameat2_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_pending(pending_rename, struct file_rename_event, PROBE_RENAME, ctx->ret);
	return 0;
}

static __always_inline int keep_unlink(int dirfd, const char *path, __u32 flags)
{
	if (skip_event(PROBE_UNLINK))
		return 0;
	struct file_unlink_event *event = scratch_record(&unlink_scratch);
	if (!event)
		return 0;
	fill_header(&event->header, OP_FILE_UNLINK, sizeof(*event));
	event->result = 0;
	event->flags = flags;
	event->path_size = read_user_path(&event->header, event->path, path);
	event->base_size = read_base(&event->header, event->base, event->path, dirfd);
	event->header.size = offsetof(struct file_unlink_event, path) + event->path_size;
	keep_pending(&pending_unlink, event, PROBE_UNLINK);
	return 0;
}

SEC("tp/syscalls/sys_enter_unlink")
int provd_unlink_enter(struct trace_event_raw_sys_enter *ctx)
{
	return keep_unlink(AT_FDCWD_VALUE, (const char *)ctx->args[0], 0);
}

SEC("tp/syscalls/sys_exit_unlink")
int provd_unlink_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_pending(pending_unlink, struct file_unlink_event, PROBE_UNLINK, ctx->ret);
	return 0;
}

SEC("tp/syscalls/sys_enter_unlinkat")
int provd_unlinkat_enter(struct trace_event_raw_sys_enter *ctx)
{
	return keep_unlink((int)ctx->args[0], (const char *)ctx->args[1], (__u32)ctx->args[2]);
}

SEC("tp/syscalls/sys_exit_unlinkat")
int provd_unlinkat_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_pending(pending_unlink, struct file_unlink_event, PROBE_UNLINK, ctx->ret);
	return 0;
}
