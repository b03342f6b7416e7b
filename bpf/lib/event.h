/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The record layout every provd BPF program writes to its ring buffer, shared by bpf/ and native/.
 * Mirrored in src/sensor/records.ts (test/sensor/struct-drift.test.ts compares them through BTF).
 * Fields are laid out by hand in natural alignment, so the layout is the same for every compiler.
 */
#ifndef PROVD_EVENT_H
#define PROVD_EVENT_H

/* what a record holds: must match src/sensor/records.ts: RecordOp */
enum record_op {
	OP_EXEC = 1,
	OP_EXIT = 2,
	OP_FILE_OPEN = 3,
	OP_FILE_RENAME = 4,
	OP_FILE_UNLINK = 5,
	OP_CONNECT = 6,
	OP_DNS = 7,
	OP_SETUID = 8,
	OP_SETGID = 9,
	OP_PTRACE = 10,
	OP_TLS_CHUNK = 11,
};

/* header.flags */
#define RECORD_TRUNCATED 1 /* a bounded field (path, argv) was cut */
#define RECORD_BASE_CUT 2  /* a relative path's directory could not be read whole */
#define RECORD_UNREADABLE 4 /* a path could not be read from the caller's memory (not paged in) */

/* the start of every record */
struct event_header {
	__u16 op;		/* enum record_op */
	__u16 size;		/* bytes of the record that hold data, from its first byte */
	__u32 flags;
	__u64 ktime_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC at capture */
	__u64 cgroup_id;	/* cgroup v2 id (the default hierarchy's, also on hybrid mounts) */
	__u32 tid;		/* the kernel's pid: one thread */
	__u32 tgid;		/* the process id users see */
	__u32 ppid;		/* real_parent's tgid */
	__u32 uid;
	__u32 gid;
	__u32 reserved;
	char comm[16];
};

#define PATH_MAX_BYTES 256
#define ARGV_MAX_BYTES 1024
#define BASE_BYTES 256 /* a relative path's directory: its components, leaf first, NUL-terminated */

/*
 * OP_EXEC, from sched_process_exec: the new image as execve was given it, the path of the file it
 * runs when that name was relative, and its argv, NUL-separated
 */
struct exec_event {
	struct event_header header;
	__u32 filename_size;	/* bytes of filename, without its NUL */
	__u32 argv_size;	/* bytes of argv kept */
	__u32 base_size;	/* bytes of base: 0 unless filename is relative */
	__u32 reserved;
	char filename[PATH_MAX_BYTES];
	char base[BASE_BYTES];	/* the executable's own path, leaf first (as dir-path.h writes it) */
	char argv[ARGV_MAX_BYTES];
};

/* OP_EXIT, from sched_process_exit of a thread-group leader */
struct exit_event {
	struct event_header header;
	__s32 exit_code;	/* the status byte exit() was given */
	__s32 signal;		/* the signal that ended it, 0 when none */
};

/*
 * OP_FILE_OPEN, from the open syscalls: the path as the caller gave it, the directory a relative
 * one is relative to, and the result
 */
struct file_open_event {
	struct event_header header;
	__s32 result;		/* the file descriptor, or -errno */
	__u32 flags;		/* the open's O_* flags */
	__u32 mode;		/* the mode asked for a file it creates */
	__u32 path_size;	/* bytes of path, without its NUL */
	__u32 base_size;	/* bytes of base: 0 for an absolute path */
	__u32 reserved;
	char base[BASE_BYTES];
	char path[PATH_MAX_BYTES];
};

/* OP_FILE_RENAME, from the rename syscalls: the paths as the caller gave them, their directories, and the result */
struct file_rename_event {
	struct event_header header;
	__s32 result;		/* 0, or -errno */
	__u32 flags;		/* renameat2's RENAME_* flags */
	__u32 old_size;
	__u32 new_size;
	__u32 old_base_size;
	__u32 new_base_size;
	char old_base[BASE_BYTES];
	char new_base[BASE_BYTES];
	char old_path[PATH_MAX_BYTES];
	char new_path[PATH_MAX_BYTES];
};

/* OP_FILE_UNLINK, from unlink and unlinkat */
struct file_unlink_event {
	struct event_header header;
	__s32 result;
	__u32 flags;		/* unlinkat's AT_REMOVEDIR */
	__u32 path_size;
	__u32 base_size;
	char base[BASE_BYTES];
	char path[PATH_MAX_BYTES];
};

/* OP_CONNECT, from the connect syscall: an IPv4 or IPv6 destination, and what the kernel answered */
struct connect_event {
	struct event_header header;
	__s32 result;		/* 0, or -errno (-EINPROGRESS for a non-blocking connect) */
	__u16 family;		/* AF_INET or AF_INET6 */
	__u16 port;		/* host order */
	__u8 addr[16];		/* network order: 4 bytes for IPv4 */
};

#define DNS_MAX_BYTES 256

/* OP_DNS, from sendto, sendmsg and sendmmsg on a UDP socket to port 53: the query as sent */
struct dns_event {
	struct event_header header;
	__u16 family;		/* AF_INET or AF_INET6 */
	__u16 port;		/* host order */
	__u32 payload_size;	/* bytes of payload kept */
	__u32 query_size;	/* bytes the resolver sent */
	__u32 reserved;
	__u8 addr[16];		/* the resolver, network order: 4 bytes for IPv4 */
	__u8 payload[DNS_MAX_BYTES];
};

/* OP_SETUID and OP_SETGID: an attempt to take another id, and what the kernel answered */
struct setid_event {
	struct event_header header;
	__s32 result;
	__u32 target;		/* the uid or gid asked for */
};

/* OP_PTRACE: a ptrace request at another process, and what the kernel answered */
struct ptrace_event {
	struct event_header header;
	__s32 result;
	__u32 target_pid;
	__s64 request;		/* PTRACE_* */
};

#define TLS_CHUNK_BYTES 16384
#define TLS_CHUNKS_PER_CALL 4 /* a call moving more is sent cut, flagged truncated */

/* tls_chunk_event.direction */
#define TLS_WRITE 1 /* plaintext the process handed to the library to encrypt */
#define TLS_READ 2  /* plaintext the library decrypted for the process */

/*
 * OP_TLS_CHUNK, from a uprobe pair on an OpenSSL read or write: the plaintext one call moved, in
 * chunks of up to TLS_CHUNK_BYTES. Sent only as long as it holds data: header.size says how long.
 */
struct tls_chunk_event {
	struct event_header header;
	__u64 conn;		/* the SSL object's address: one connection within its process */
	__u32 call_size;	/* bytes the call moved */
	__u32 offset;		/* where this chunk starts within them */
	__u32 data_size;	/* bytes of data in this chunk */
	__u16 direction;	/* TLS_WRITE or TLS_READ */
	__u16 unreadable;	/* 1: the library's buffer could not be read, data_size is 0 */
	__u64 seq;		/* this chunk's number in its (process, conn, direction) stream, from 0 */
	__u8 data[TLS_CHUNK_BYTES];
};

/* one per probe in each program's provd_loss map (per CPU) */
struct loss_counts {
	__u64 ring_full;	/* records dropped: the ring buffer had no room */
	__u64 truncated;	/* records sent with a field cut */
	__u64 pending_full;	/* records dropped: too many of the probe's syscalls were in flight */
	__u64 filtered;		/* events left out on purpose: capture_bound, of a process nothing binds */
};

#endif
