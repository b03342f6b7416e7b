// One hook event to the daemon's hook socket: HTTP/1.1 over a Unix stream socket, one request per
// connection. Unreachable (no socket, refused, no room in its backlog within the connect timeout)
// and unanswered (no answer within the answer timeout) are told apart, since only the second may
// have reached the daemon.
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hook-client.h"

// A daemon that is up accepts at once; 1 s covers a burst of hooks filling its backlog.
#define CONNECT_TIMEOUT_MS 1000
// A PreToolUse is answered without a store round trip; other events wait for their write.
#define ANSWER_TIMEOUT_MS 5000
// The answers are small JSON objects; anything longer is not the daemon's.
#define ANSWER_MAX (256 * 1024)

static long now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000L + now.tv_nsec / 1000000L;
}

static void fail(struct daemon_answer *answer, const char *what, int error) {
  answer->status = 0;
  if (error != 0)
    snprintf(answer->error, sizeof(answer->error), "%s: %s", what, strerror(error));
  else
    snprintf(answer->error, sizeof(answer->error), "%s", what);
}

// The run as a query value: unreserved bytes kept, every other byte percent-encoded.
static int append_query_value(struct buffer *buffer, const char *value) {
  static const char hex[] = "0123456789ABCDEF";
  for (const unsigned char *at = (const unsigned char *)value; *at != '\0'; at++) {
    char encoded[3] = {(char)*at, 0, 0};
    size_t size = 1;
    if (!((*at >= 'a' && *at <= 'z') || (*at >= 'A' && *at <= 'Z') || (*at >= '0' && *at <= '9') ||
          *at == '-' || *at == '_' || *at == '.' || *at == '~')) {
      encoded[0] = '%';
      encoded[1] = hex[*at >> 4];
      encoded[2] = hex[*at & 15];
      size = 3;
    }
    if (buffer_append(buffer, encoded, size) != 0) return -1;
  }
  return 0;
}

static int connect_socket(const char *path, struct daemon_answer *answer) {
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof(address.sun_path)) {
    fail(answer, "the socket path is too long", 0);
    return -1;
  }
  strcpy(address.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    fail(answer, "socket", errno);
    return -1;
  }
  // a Unix stream connect waits for room in the listener's backlog up to the send timeout
  struct timeval timeout = {.tv_sec = CONNECT_TIMEOUT_MS / 1000, .tv_usec = (CONNECT_TIMEOUT_MS % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  if (connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
    fail(answer, "cannot connect to the hook socket", errno);
    close(fd);
    return -1;
  }
  return fd;
}

static int write_all(int fd, const char *bytes, size_t size) {
  while (size > 0) {
    ssize_t written = send(fd, bytes, size, MSG_NOSIGNAL);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return -1;
    bytes += written;
    size -= (size_t)written;
  }
  return 0;
}

// The size of a whole answer once its head is in: the head, and the body its Content-Length gives;
// 0 while the head is incomplete or names no length (then the answer runs to the daemon's close).
static size_t whole_answer_size(const struct buffer *raw) {
  static const char name[] = "\r\ncontent-length:";
  const char *end = strstr(raw->data, "\r\n\r\n");
  if (end == NULL) return 0;
  for (const char *at = raw->data; at + sizeof(name) - 1 <= end; at++) {
    if (strncasecmp(at, name, sizeof(name) - 1) != 0) continue;
    char *digits_end;
    unsigned long long length = strtoull(at + sizeof(name) - 1, &digits_end, 10);
    if (digits_end == at + sizeof(name) - 1 || (*digits_end != '\r' && *digits_end != ' ')) return 0;
    return length > ANSWER_MAX ? 0 : (size_t)(end + 4 - raw->data) + (size_t)length;
  }
  return 0;
}

// Reads until the answer is whole by its Content-Length, else until the daemon closes (the request
// said Connection: close), or the deadline passes. The daemon closes a moment after it answers, a
// moment that on a busy host is its event loop's next turn: the hook does not wait for it.
static int read_answer(int fd, struct buffer *raw, struct daemon_answer *answer) {
  long deadline = now_ms() + ANSWER_TIMEOUT_MS;
  char chunk[16384];
  for (;;) {
    long left = deadline - now_ms();
    struct pollfd ready = {.fd = fd, .events = POLLIN};
    int polled = left > 0 ? poll(&ready, 1, (int)left) : 0;
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      fail(answer, "no answer from the daemon within 5 s", 0);
      return -1;
    }
    ssize_t got = recv(fd, chunk, sizeof(chunk), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      fail(answer, "reading the daemon's answer", errno);
      return -1;
    }
    if (got == 0) return 0;
    if (raw->size + (size_t)got > ANSWER_MAX || buffer_append(raw, chunk, (size_t)got) != 0) {
      fail(answer, "the daemon's answer is over 256 KiB", 0);
      return -1;
    }
    size_t whole = whole_answer_size(raw);
    if (whole != 0 && raw->size >= whole) {
      raw->size = whole;  // anything past the answer is not its body
      raw->data[whole] = '\0';
      return 0;
    }
  }
}

// Status line and body of an HTTP/1.1 answer whose body runs to the end (or to Content-Length).
static void parse_answer(struct buffer *raw, struct daemon_answer *answer) {
  int status = 0;
  char *end = raw->data == NULL ? NULL : strstr(raw->data, "\r\n\r\n");
  if (end == NULL || sscanf(raw->data, "HTTP/1.%*1[01] %3d", &status) != 1 || status < 100) {
    fail(answer, "the daemon's answer is not HTTP", 0);
    return;
  }
  const char *body = end + 4;
  size_t size = raw->size - (size_t)(body - raw->data);
  answer->status = status;
  if (buffer_append(&answer->body, body, size) != 0) fail(answer, "out of memory", 0);
}

void request_daemon(const char *socket_path, const char *agent, const char *run, const char *payload,
                    size_t size, struct daemon_answer *answer) {
  memset(answer, 0, sizeof(*answer));
  int fd = connect_socket(socket_path, answer);
  if (fd < 0) return;
  struct buffer head = {0};
  char length[64];
  snprintf(length, sizeof(length), "\r\nContent-Length: %zu\r\n\r\n", size);
  int built = buffer_append_text(&head, "POST /v1/hooks/") | buffer_append_text(&head, agent);
  if (run != NULL) built |= buffer_append_text(&head, "?run=") | append_query_value(&head, run);
  built |= buffer_append_text(&head,
                              " HTTP/1.1\r\nHost: provd\r\nConnection: close\r\n"
                              "Content-Type: application/json") |
           buffer_append_text(&head, length);
  if (built != 0) {
    fail(answer, "out of memory", 0);
  } else if (write_all(fd, head.data, head.size) != 0 || write_all(fd, payload, size) != 0) {
    fail(answer, "sending to the hook socket", errno);
  } else {
    answer->sent = 1;
    struct buffer raw = {0};
    if (read_answer(fd, &raw, answer) == 0) parse_answer(&raw, answer);
    free(raw.data);
  }
  free(head.data);
  close(fd);
}
