// SPDX-License-Identifier: GPL-2.0
/*
 * Marks a bound process's TCP connections to the daemon's own HTTP port: the socket's source
 * address becomes 127.0.0.2 (bpf_bind, before the kernel picks one), so the daemon, which sees only
 * a request's remote address (uWS gives no port), knows the request came from a process a binding
 * covers: an agent's, a watched or recorded command's (src/daemon/watched-caller.ts refuses its
 * writes). The kernel sets the mark at connect(), so it cannot be forged or raced; a process
 * nothing binds keeps the address the kernel picks. Attached to the cgroup v2 root as a bpf_link
 * (native/src/program-loader.cc), so it runs for every connect on the host and goes with the daemon.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include "emit.h"
#include "connect-mark.h"

char LICENSE[] SEC("license") = "GPL";

#define AF_INET 2
#define AF_INET6 10
#define SOCK_STREAM 1
/* a cgroup/connect program's answers: go on with the connect, or fail it with EPERM */
#define CONNECT_ALLOW 1
#define CONNECT_REFUSE 0

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mark_target);
} provd_mark_target SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mark_counts);
} provd_mark_counts SEC(".maps");

static __always_inline struct mark_target *target_of(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&provd_mark_target, &zero);
}

static __always_inline int counted(int answer)
{
	__u32 zero = 0;
	struct mark_counts *counts = bpf_map_lookup_elem(&provd_mark_counts, &zero);
	if (counts) {
		if (answer == CONNECT_ALLOW)
			counts->marked++;
		else
			counts->refused++;
	}
	return answer;
}

/* 127.0.0.0/8, or the address the daemon listens on */
static __always_inline bool reaches_listener4(const struct mark_target *target, __u32 ip4)
{
	return (bpf_ntohl(ip4) >> 24) == 127 || (target->ip4 != 0 && ip4 == target->ip4);
}

/* a TCP connect to the daemon's port, by a process a binding covers (the first tests are the cheap ones) */
static __always_inline struct mark_target *bound_connect_to_daemon(struct bpf_sock_addr *ctx)
{
	struct mark_target *target = target_of();
	if (!target || target->port == 0 || ctx->user_port != target->port || ctx->type != SOCK_STREAM)
		return NULL;
	return is_bound() ? target : NULL;
}

SEC("cgroup/connect4")
int provd_mark_connect4(struct bpf_sock_addr *ctx)
{
	struct mark_target *target = bound_connect_to_daemon(ctx);
	if (!target || !reaches_listener4(target, ctx->user_ip4))
		return CONNECT_ALLOW;
	struct sockaddr_in marker = {};
	marker.sin_family = AF_INET;
	marker.sin_addr.s_addr = bpf_htonl(MARK_SOURCE_IP4);
	/* port 0: the kernel still picks the port at connect; a socket bound to a port already fails */
	if (bpf_bind(ctx, (struct sockaddr *)&marker, sizeof(marker)) != 0)
		return counted(CONNECT_REFUSE);
	return counted(CONNECT_ALLOW);
}

SEC("cgroup/connect6")
int provd_mark_connect6(struct bpf_sock_addr *ctx)
{
	struct mark_target *target = bound_connect_to_daemon(ctx);
	if (!target)
		return CONNECT_ALLOW;
	__u32 a = ctx->user_ip6[0], b = ctx->user_ip6[1], c = ctx->user_ip6[2], d = ctx->user_ip6[3];
	bool mapped4 = a == 0 && b == 0 && c == bpf_htonl(0xffff);
	if (mapped4) {
		/* a dual-stack socket connecting to an IPv4 listener: marked as ::ffff:127.0.0.2 */
		if (!reaches_listener4(target, d))
			return CONNECT_ALLOW;
		struct sockaddr_in6 marker = {};
		marker.sin6_family = AF_INET6;
		marker.sin6_addr.in6_u.u6_addr32[2] = bpf_htonl(0xffff);
		marker.sin6_addr.in6_u.u6_addr32[3] = bpf_htonl(MARK_SOURCE_IP4);
		if (bpf_bind(ctx, (struct sockaddr *)&marker, sizeof(marker)) != 0)
			return counted(CONNECT_REFUSE);
		return counted(CONNECT_ALLOW);
	}
	if (!target->listens_ip6)
		return CONNECT_ALLOW;
	/* IPv6 has one loopback address, ::1: nothing to mark with, so the connect is refused */
	bool loopback = a == 0 && b == 0 && c == 0 && d == bpf_htonl(1);
	bool listener = a == target->ip6[0] && b == target->ip6[1] && c == target->ip6[2] && d == target->ip6[3];
	if (loopback || listener)
		return counted(CONNECT_REFUSE);
	return CONNECT_ALLOW;
}
