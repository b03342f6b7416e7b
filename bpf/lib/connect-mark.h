/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the connect mark (bpf/connect-mark.bpf.c) reads and counts, shared with native/src/connect-mark.cc.
 */
#ifndef PROVD_CONNECT_MARK_H
#define PROVD_CONNECT_MARK_H

/* 127.0.0.2, host order: the source address of a bound process's connection to the daemon */
#define MARK_SOURCE_IP4 0x7f000002

/* provd_mark_target[0]: the daemon's HTTP listener, set once it listens; port 0 marks nothing */
struct mark_target {
	__u32 port; /* network order in the low 16 bits, as bpf_sock_addr.user_port */
	__u32 ip4;  /* the listen address, network order; 0: loopback destinations (127/8) only */
	__u32 ip6[4]; /* an IPv6 listen address (network order), all zero when it listens on IPv4 */
	__u32 listens_ip6; /* 1: the listener takes IPv6 connects, which no loopback marker can mark */
};

/* provd_mark_counts[0], per CPU: connects to the daemon by bound processes */
struct mark_counts {
	__u64 marked;  /* bound to the marker address */
	__u64 refused; /* refused (EPERM): the socket was bound already, or IPv6 loopback */
};

#endif
