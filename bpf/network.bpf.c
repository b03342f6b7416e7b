// SPDX-License-Identifier: GPL-2.0
/* Network activity: IPv4 and IPv6 connects, with what the kernel answered. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "pending.h"

char LICENSE[] SEC("license") = "GPL";

struct connect_event *unused_connect_event __attribute__((unused));

/* probe numbers, for provd_loss: must match src/sensor/probes.ts */
enum { PROBE_CONNECT = 0 };

#define AF_INET 2
#define AF_INET6 10

SCRATCH_MAP(connect_scratch, struct connect_event);
PENDING_MAP(pending_connect, struct connect_event);

SEC("tp/syscalls/sys_enter_connect")
int provd_connect_enter(struct trace_event_raw_sys_enter *ctx)
{
	if (is_self())
		return 0;
	const void *address = (const void *)ctx->args[1];
	__u16 family = 0;
	if (bpf_probe_read_user(&family, sizeof(family), address) != 0)
		return 0;
	if (family != AF_INET && family != AF_INET6)
		return 0; /* unix sockets and the rest are not network destinations */
	struct connect_event *event = scratch_record(&connect_scratch);
	if (!event)
		return 0;
	fill_header(&event->header, OP_CONNECT, sizeof(*event));
	event->result = 0;
	event->family = family;
	__builtin_memset(event->addr, 0, sizeof(event->addr));
	if (family == AF_INET) {
		struct sockaddr_in in = {};
		bpf_probe_read_user(&in, sizeof(in), address);
		event->port = bpf_ntohs(in.sin_port);
		__builtin_memcpy(event->addr, &in.sin_addr.s_addr, 4);
	} else {
		struct sockaddr_in6 in6 = {};
		bpf_probe_read_user(&in6, sizeof(in6), address);
		event->port = bpf_ntohs(in6.sin6_port);
		__builtin_memcpy(event->addr, &in6.sin6_addr, 16);
	}
	keep_pending(&pending_connect, event, PROBE_CONNECT);
	return 0;
}

SEC("tp/syscalls/sys_exit_connect")
int provd_connect_exit(struct trace_event_raw_sys_exit *ctx)
{
	send_pending(pending_connect, struct connect_event, PROBE_CONNECT, ctx->ret);
	return 0;
}
