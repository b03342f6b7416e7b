// provd-hook: an agent's hook command (src/agents/hook-command.ts is the contract). Shared by the
// client's files; libc only, so it starts in about a millisecond.
#pragma once

#include <stddef.h>

// A hook payload over this is refused (the daemon's own bound is the same).
#define HOOK_MAX_PAYLOAD (1024 * 1024)

// A growable byte buffer; every append is bounded by its caller.
struct buffer {
  char *data;
  size_t size;
  size_t capacity;
};

int buffer_append(struct buffer *buffer, const char *bytes, size_t size);
int buffer_append_text(struct buffer *buffer, const char *text);
// Appends `bytes` as the body of a JSON string (quotes not included).
int buffer_append_json_string(struct buffer *buffer, const char *bytes, size_t size);

// What the daemon answered: its status and body; status 0 when it could not be reached.
struct daemon_answer {
  int status;
  // why it could not be reached or answered, for stderr
  char error[160];
  // 1 when the whole request was written before the failure (the daemon may hold it)
  int sent;
  struct buffer body;
};

// Sends the payload to the hook socket as POST /v1/hooks/AGENT[?run=RUN] (HTTP/1.1) and reads the
// answer. daemon-request.c.
void request_daemon(const char *socket_path, const char *agent, const char *run, const char *payload,
                    size_t size, struct daemon_answer *answer);

// Appends the payload, with the time and what was answered, to the user's spool file in
// `<data dir>/hook-spool/`; returns 0, or -1 with `error` set. spool.c.
int spool_payload(const char *data_dir, const char *agent, const char *run, const char *payload, size_t size,
                  int sent, const char *answered, char *error, size_t error_size);
