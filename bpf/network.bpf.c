// SPDX-License-Identifier: GPL-2.0
/*
 * Network activity: IPv4 and IPv6 connects with what the kernel answered, and DNS queries: what a
 * process sends on a UDP socket to port 53 (src/sensor/dns-query.ts reads the name and type).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "pending.h"

char LICENSE[] SEC("license") = "GPL";

struct connect_event *unused_connect_event __attribute__((unused));
struct dns_event *unused_dns_event __attribute__((unused));

/* probe numbers, for provd_loss: must match src/sensor/probes.ts */
enum { PROBE_CONNECT = 0, PROBE_DNS = 1 };

#define AF_INET 2
#define AF_INET6 10
#define DNS_PORT 53
#define IPPROTO_UDP 17
#define S_IFMT 0170000
#define S_IFSOCK 0140000
/* the queries of one sendmmsg looked at: a resolver sends its A and AAAA queries in one */
#define MMSG_MAX 2

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
	if (!is_captured()) {
		skip_event(PROBE_CONNECT);
		return 0;
	}
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

/* the socket behind the caller's descriptor `fd`, or NULL when it is not a socket */
static __always_inline struct sock *socket_of(long fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *table = BPF_CORE_READ(task, files, fdt);
	if (fd < 0 || fd >= BPF_CORE_READ(table, max_fds))
		return NULL;
	struct file **files = BPF_CORE_READ(table, fd);
	struct file *file = NULL;
	bpf_probe_read_kernel(&file, sizeof(file), &files[fd]);
	if (!file || (BPF_CORE_READ(file, f_inode, i_mode) & S_IFMT) != S_IFSOCK)
		return NULL;
	struct socket *socket = BPF_CORE_READ(file, private_data);
	return BPF_CORE_READ(socket, sk);
}

/*
 * A datagram on descriptor `fd` to `to` (user memory; NULL: the socket's connected peer): sent as a
 * DNS query when the socket is UDP and the destination port 53.
 */
static __always_inline void send_dns(long fd, const void *to, const void *payload, __u64 length)
{
	struct sock *sk = socket_of(fd);
	if (!sk || BPF_CORE_READ(sk, sk_protocol) != IPPROTO_UDP)
		return;
	__u16 family = 0, port = 0;
	__u8 addr[16] = {};
	if (to) {
		if (bpf_probe_read_user(&family, sizeof(family), to) != 0)
			return;
		if (family == AF_INET) {
			struct sockaddr_in in = {};
			bpf_probe_read_user(&in, sizeof(in), to);
			port = bpf_ntohs(in.sin_port);
			__builtin_memcpy(addr, &in.sin_addr.s_addr, 4);
		} else if (family == AF_INET6) {
			struct sockaddr_in6 in6 = {};
			bpf_probe_read_user(&in6, sizeof(in6), to);
			port = bpf_ntohs(in6.sin6_port);
			__builtin_memcpy(addr, &in6.sin6_addr, 16);
		}
	} else {
		family = BPF_CORE_READ(sk, __sk_common.skc_family);
		port = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
		if (family == AF_INET) {
			__u32 daddr = BPF_CORE_READ(sk, __sk_common.skc_daddr);
			__builtin_memcpy(addr, &daddr, 4);
		} else if (family == AF_INET6) {
			BPF_CORE_READ_INTO(&addr, sk, __sk_common.skc_v6_daddr);
		}
	}
	if (port != DNS_PORT || (family != AF_INET && family != AF_INET6))
		return;
	if (skip_event(PROBE_DNS))
		return;
	struct dns_event *event = reserve_record(struct dns_event, PROBE_DNS);
	if (!event)
		return;
	fill_header(&event->header, OP_DNS, sizeof(*event));
	event->family = family;
	event->port = port;
	event->reserved = 0;
	__builtin_memcpy(event->addr, addr, sizeof(addr));
	event->query_size = length;
	__u32 kept = length;
	if (length > DNS_MAX_BYTES) {
		kept = DNS_MAX_BYTES;
		event->header.flags |= RECORD_TRUNCATED;
	}
	if (kept == 0 || bpf_probe_read_user(event->payload, kept, payload) != 0)
		kept = 0;
	event->payload_size = kept;
	event->header.size = offsetof(struct dns_event, payload) + kept;
	submit_record(&event->header, PROBE_DNS, sizeof(*event));
}

/* a user msghdr's destination and first buffer (a resolver writes a query in one) */
static __always_inline void send_dns_message(long fd, const struct user_msghdr *message)
{
	struct user_msghdr header = {};
	if (bpf_probe_read_user(&header, sizeof(header), message) != 0 || header.msg_iovlen == 0)
		return;
	struct iovec first = {};
	if (bpf_probe_read_user(&first, sizeof(first), header.msg_iov) != 0)
		return;
	send_dns(fd, header.msg_name, first.iov_base, first.iov_len);
}

SEC("tp/syscalls/sys_enter_sendto")
int provd_dns_sendto(struct trace_event_raw_sys_enter *ctx)
{
	if (!is_self())
		send_dns(ctx->args[0], (const void *)ctx->args[4], (const void *)ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tp/syscalls/sys_enter_sendmsg")
int provd_dns_sendmsg(struct trace_event_raw_sys_enter *ctx)
{
	if (!is_self())
		send_dns_message(ctx->args[0], (const struct user_msghdr *)ctx->args[1]);
	return 0;
}

SEC("tp/syscalls/sys_enter_sendmmsg")
int provd_dns_sendmmsg(struct trace_event_raw_sys_enter *ctx)
{
	if (is_self())
		return 0;
	const struct mmsghdr *messages = (const struct mmsghdr *)ctx->args[1];
	__u32 count = (__u32)ctx->args[2];
	for (__u32 i = 0; i < MMSG_MAX; i++) {
		if (i >= count)
			break;
		send_dns_message(ctx->args[0], &messages[i].msg_hdr);
	}
	return 0;
}
