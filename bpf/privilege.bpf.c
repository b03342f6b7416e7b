// SPDX-License-Identifier: GPL-2.0
/*
 * Privilege and process-access attempts: setuid, setgid (the id asked for) and ptrace (the request
 * and its target), each with what the kernel answered. An attempt is evidence of trying, not of
 * succeeding: the result says which.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pending.h"

char LICENSE[] SEC("license") = "GPL";

struct setid_event *unused_setid_event __attribute__((unused));
struct ptrace_event *unused_ptrace_event __attribute__((unused));

/* probe numbers, for provd_loss: must match src/sensor/probes.ts */
enum { PROBE_SETUID = 0, PROBE_SETGID = 1, PROBE_PTRACE = 2 };

SCRATCH_MAP(setid_scratch, struct setid_event);
SCRATCH_MAP(ptrace_scratch, struct ptrace_event);
PENDING_MAP(pending_setuid, struct setid_event);
PENDING_MAP(pending_setgid, struct setid_event);
PENDING_MAP(pending_ptrace, struct ptrace_event);

static __always_inline int keep_setid(void *pending, __u16 op, __u32 probe, __u32 target)
{
	if (skip_event(probe))
		return 0;
	struct setid_event *event = scratch_record(&setid_scratch);
	if (!event)
		return 0;
	fill_header(&event->header, op, sizeof(*event));
	event->target = target;
	event->result = 0;
	keep_pending(pending, event, probe);
	return 0;
}

SEC("tp/syscalls/sys_enter_setuid")
int provd_setuid_enter(struct trace_event_raw_sys_enter *ctx)
{
	return keep_setid(&pending_setuid, OP_SETUID, PROBE_SETUID, (__u32)ctx->args[0]);
}

SEC("tp/syscalls/sys_exit_setuid")
int provd_setuid_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_pending(pending_setuid, struct setid_event, PROBE_SETUID, ctx->ret);
	return 0;
}

SEC("tp/syscalls/sys_enter_setgid")
int provd_setgid_enter(struct trace_event_raw_sys_enter *ctx)
{
	return keep_setid(&pending_setgid, OP_SETGID, PROBE_SETGID, (__u32)ctx->args[0]);
}

SEC("tp/syscalls/sys_exit_setgid")
int provd_setgid_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_pending(pending_setgid, struct setid_event, PROBE_SETGID, ctx->ret);
	return 0;
}

SEC("tp/syscalls/sys_enter_ptrace")
int provd_ptrace_enter(struct trace_event_raw_sys_enter *ctx)
{
	if (skip_event(PROBE_PTRACE))
		return 0;
	struct ptrace_event *event = scratch_record(&ptrace_scratch);
	if (!event)
		return 0;
	fill_header(&event->header, OP_PTRACE, sizeof(*event));
	event->request = (__s64)ctx->args[0];
	event->target_pid = (__u32)ctx->args[1];
	event->result = 0;
	keep_pending(&pending_ptrace, event, PROBE_PTRACE);
	return 0;
}

SEC("tp/syscalls/sys_exit_ptrace")
int provd_ptrace_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_pending(pending_ptrace, struct ptrace_event, PROBE_PTRACE, ctx->ret);
	return 0;
}
