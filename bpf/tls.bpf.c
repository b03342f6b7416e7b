// SPDX-License-Identifier: GPL-2.0
/*
 * TLS plaintext at OpenSSL's API (SSL_write, SSL_read and their _ex forms, in libssl or in a binary
 * that links OpenSSL statically, such as node) and at Go's (crypto/tls.(*Conn).Write and Read). The
 * entry keeps the call's buffer; the return sends what the call really moved, in chunks. These
 * programs attach per target (a library or a binary), from src/sensor/tls-targets.ts, never on
 * their own.
 */
#define RING_BYTES (8 * 1024 * 1024)
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "emit.h"

char LICENSE[] SEC("license") = "GPL";

struct tls_chunk_event *unused_tls_chunk_event __attribute__((unused));

/* probe numbers, for provd_loss: must match src/sensor/probes.ts */
enum { PROBE_TLS_WRITE = 0, PROBE_TLS_READ = 1 };

/*
 * a call in flight: the connection (OpenSSL's SSL object, Go's *tls.Conn), its buffer, and where an
 * _ex form writes the bytes it moved
 */
struct tls_call {
	__u64 conn;
	__u64 buffer;
	__u64 moved; /* size_t *, 0 for SSL_write and SSL_read, which return the count */
};

/*
 * LRU, unlike the syscall pairs (pending.h): a process killed while blocked in SSL_read never
 * returns from it, and its entry would stay in a plain hash for good. A live call evicted is
 * counted when it returns (pending_full).
 */
#define TLS_CALLS_MAX 8192

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLS_CALLS_MAX);
	__type(key, __u64);
	__type(value, struct tls_call);
} tls_writes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLS_CALLS_MAX);
	__type(key, __u64);
	__type(value, struct tls_call);
} tls_reads SEC(".maps");

/*
 * A Go call is kept by goroutine, not thread: a goroutine blocked in Read lets its thread run
 * others, and may return on another thread.
 */
struct go_call_key {
	__u64 goroutine;
	__u32 tgid;
	__u32 unused;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLS_CALLS_MAX);
	__type(key, struct go_call_key);
	__type(value, struct tls_call);
} go_tls_writes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLS_CALLS_MAX);
	__type(key, struct go_call_key);
	__type(value, struct tls_call);
} go_tls_reads SEC(".maps");

/* a stream: one direction of one connection in one process */
struct tls_stream {
	__u64 conn;
	__u32 tgid;
	__u32 direction;
};

/*
 * The next chunk number of each stream. A chunk the ring had no room for still takes its number,
 * so the TLS pool sees the hole in its stream (src/sensor/tls/http1-stream.ts). Evicted, a
 * stream's numbers start again from 0, which the pool takes as a restart, not as loss.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct tls_stream);
	__type(value, __u64);
} tls_seqs SEC(".maps");

static __always_inline __u64 next_seq(__u64 conn, __u16 direction)
{
	struct tls_stream stream = { .conn = conn, .tgid = bpf_get_current_pid_tgid() >> 32, .direction = direction };
	__u64 *next = bpf_map_lookup_elem(&tls_seqs, &stream);
	if (next)
		return __sync_fetch_and_add(next, 1);
	__u64 first = 1;
	bpf_map_update_elem(&tls_seqs, &stream, &first, BPF_ANY);
	return 0;
}

/* room to build one chunk off the 512-byte stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tls_chunk_event);
} tls_scratch SEC(".maps");

/* keeps a call at its entry, under `key` (a thread, or a goroutine) */
static __always_inline int keep_call(void *calls, const void *key, __u32 probe, __u64 conn, __u64 buffer,
				     __u64 moved)
{
	if (skip_event(probe))
		return 0;
	struct tls_call call = { .conn = conn, .buffer = buffer, .moved = moved };
	if (bpf_map_update_elem(calls, key, &call, BPF_ANY) != 0)
		count_pending_full(probe);
	return 0;
}

/*
 * At the call's return: sends the plaintext it moved, `ret` as the call returned it. A return
 * without its entry lost its plaintext: the entry was evicted, or (Go, whose returns are probed
 * apart from the entry) the call began before its probes attached.
 */
static __always_inline int send_call(void *calls, const void *key, __u32 probe, __u16 direction, __s64 ret)
{
	if (is_self() || !is_captured()) /* its entry was skipped (and counted) too */
		return 0;
	struct tls_call *kept = bpf_map_lookup_elem(calls, key);
	if (!kept) {
		count_pending_full(probe);
		return 0;
	}
	struct tls_call call = *kept;
	bpf_map_delete_elem(calls, key);

	__u64 size = ret > 0 ? ret : 0; /* a negative return is an error, never a count */
	if (call.moved) { /* the _ex forms return 1 and write the count */
		if (ret != 1 || bpf_probe_read_user(&size, sizeof(size), (void *)call.moved) != 0)
			return 0;
	}
	if (size == 0)
		return 0;

	__u32 zero = 0;
	struct tls_chunk_event *chunk = bpf_map_lookup_elem(&tls_scratch, &zero);
	if (!chunk)
		return 0;
	fill_header(&chunk->header, OP_TLS_CHUNK, 0);
	chunk->conn = call.conn;
	chunk->call_size = size > 0xffffffff ? 0xffffffff : (__u32)size;
	chunk->direction = direction;
	if (size > (__u64)TLS_CHUNK_BYTES * TLS_CHUNKS_PER_CALL) {
		chunk->header.flags |= RECORD_TRUNCATED;
		count_truncated(probe);
	}

	for (__u32 i = 0; i < TLS_CHUNKS_PER_CALL; i++) {
		__u64 offset = (__u64)i * TLS_CHUNK_BYTES;
		if (offset >= size)
			break;
		__u32 length = size - offset > TLS_CHUNK_BYTES ? TLS_CHUNK_BYTES : size - offset;
		chunk->offset = offset;
		chunk->unreadable = bpf_probe_read_user(chunk->data, length, (void *)(call.buffer + offset)) != 0;
		if (chunk->unreadable)
			length = 0;
		chunk->data_size = length;
		chunk->seq = next_seq(call.conn, direction);
		__u32 bytes = offsetof(struct tls_chunk_event, data) + length;
		chunk->header.size = bytes;
		if (bpf_ringbuf_output(&provd_ring, chunk, bytes, wakeup_flag(0)) != 0)
			count_ring_full(probe);
	}
	return 0;
}

/* OpenSSL: a call is kept by thread, and its return probed by a uretprobe */
static __always_inline int keep_ssl_call(void *calls, __u32 probe, void *ssl, const void *buffer, void *moved)
{
	__u64 thread = bpf_get_current_pid_tgid();
	return keep_call(calls, &thread, probe, (__u64)ssl, (__u64)buffer, (__u64)moved);
}

static __always_inline int send_ssl_call(void *calls, __u32 probe, __u16 direction, int ret)
{
	__u64 thread = bpf_get_current_pid_tgid();
	return send_call(calls, &thread, probe, direction, ret);
}

SEC("uprobe")
int BPF_KPROBE(provd_ssl_write_enter, void *ssl, const void *buffer)
{
	return keep_ssl_call(&tls_writes, PROBE_TLS_WRITE, ssl, buffer, 0);
}

SEC("uretprobe")
int BPF_KRETPROBE(provd_ssl_write_exit, int ret)
{
	return send_ssl_call(&tls_writes, PROBE_TLS_WRITE, TLS_WRITE, ret);
}

/* int SSL_write_ex(SSL *s, const void *buf, size_t num, size_t *written) */
SEC("uprobe")
int BPF_KPROBE(provd_ssl_write_ex_enter, void *ssl, const void *buffer, size_t num, size_t *written)
{
	return keep_ssl_call(&tls_writes, PROBE_TLS_WRITE, ssl, buffer, written);
}

SEC("uretprobe")
int BPF_KRETPROBE(provd_ssl_write_ex_exit, int ret)
{
	return send_ssl_call(&tls_writes, PROBE_TLS_WRITE, TLS_WRITE, ret);
}

SEC("uprobe")
int BPF_KPROBE(provd_ssl_read_enter, void *ssl, void *buffer)
{
	return keep_ssl_call(&tls_reads, PROBE_TLS_READ, ssl, buffer, 0);
}

SEC("uretprobe")
int BPF_KRETPROBE(provd_ssl_read_exit, int ret)
{
	return send_ssl_call(&tls_reads, PROBE_TLS_READ, TLS_READ, ret);
}

/* int SSL_read_ex(SSL *s, void *buf, size_t num, size_t *readbytes) */
SEC("uprobe")
int BPF_KPROBE(provd_ssl_read_ex_enter, void *ssl, void *buffer, size_t num, size_t *read)
{
	return keep_ssl_call(&tls_reads, PROBE_TLS_READ, ssl, buffer, read);
}

SEC("uretprobe")
int BPF_KRETPROBE(provd_ssl_read_ex_exit, int ret)
{
	return send_ssl_call(&tls_reads, PROBE_TLS_READ, TLS_READ, ret);
}

/*
 * Go, amd64, ABIInternal (Go 1.17 on; attached for the versions tls-targets.ts supports):
 * func (c *Conn) Write(b []byte) (int, error) and Read alike take c in RAX, b's pointer in RBX and
 * its length in RCX, and return the count in RAX; R14 holds the running goroutine throughout. A
 * uretprobe would rewrite a return address on a goroutine's stack, which Go's runtime moves as it
 * grows: the return is probed at each RET of the function instead (the _return programs).
 */
static __always_inline struct go_call_key go_key(struct pt_regs *ctx)
{
	struct go_call_key key = { .goroutine = ctx->r14, .tgid = bpf_get_current_pid_tgid() >> 32 };
	return key;
}

SEC("uprobe")
int provd_go_tls_write_enter(struct pt_regs *ctx)
{
	struct go_call_key key = go_key(ctx);
	return keep_call(&go_tls_writes, &key, PROBE_TLS_WRITE, ctx->ax, ctx->bx, 0);
}

SEC("uprobe")
int provd_go_tls_write_return(struct pt_regs *ctx)
{
	struct go_call_key key = go_key(ctx);
	return send_call(&go_tls_writes, &key, PROBE_TLS_WRITE, TLS_WRITE, (__s64)ctx->ax);
}

SEC("uprobe")
int provd_go_tls_read_enter(struct pt_regs *ctx)
{
	struct go_call_key key = go_key(ctx);
	return keep_call(&go_tls_reads, &key, PROBE_TLS_READ, ctx->ax, ctx->bx, 0);
}

SEC("uprobe")
int provd_go_tls_read_return(struct pt_regs *ctx)
{
	struct go_call_key key = go_key(ctx);
	return send_call(&go_tls_reads, &key, PROBE_TLS_READ, TLS_READ, (__s64)ctx->ax);
}
