// The spool of hook events that reached no daemon: `<data dir>/hook-spool/<uid>.ndjson`, one JSON
// line per event, appended in one write (O_APPEND: lines of concurrent hooks never interleave).
// The daemon makes the dir (mode 1733: every user may add a file, none may list it or remove
// another's) and reads every file at its next start, each as its owner's words.
//
// A file is only appended to when it is a regular file owned by this user and closed to others:
// another user who made it first, or a link, is refused, so nobody can plant lines under another's
// name. Bounded: past 16 MiB only a short overflow line (the time and the agent) is written per
// event, so the daemon can count them; past 17 MiB nothing, and stderr says so.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hook-client.h"

#define SPOOL_MAX_BYTES (16L * 1024 * 1024)
#define SPOOL_OVERFLOW_MAX_BYTES (SPOOL_MAX_BYTES + 1024L * 1024)

static void say(char *error, size_t error_size, const char *what, int code) {
  if (code != 0)
    snprintf(error, error_size, "%s: %s", what, strerror(code));
  else
    snprintf(error, error_size, "%s", what);
}

// RFC 3339 UTC with nanoseconds, as the daemon writes times.
static void format_now(char *out, size_t size) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct tm utc;
  gmtime_r(&now.tv_sec, &utc);
  char seconds[32];
  strftime(seconds, sizeof(seconds), "%Y-%m-%dT%H:%M:%S", &utc);
  snprintf(out, size, "%s.%09ldZ", seconds, now.tv_nsec);
}

static int open_own_spool(const char *data_dir, char *error, size_t error_size) {
  char path[4096];
  if (snprintf(path, sizeof(path), "%s/hook-spool/%u.ndjson", data_dir, (unsigned)getuid()) >= (int)sizeof(path)) {
    say(error, error_size, "the spool path is too long", 0);
    return -1;
  }
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
  if (fd < 0) {
    say(error, error_size, "cannot open the spool file", errno);
    return -1;
  }
  struct stat status;
  if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode) || status.st_uid != getuid() ||
      (status.st_mode & 0077) != 0) {
    say(error, error_size, "the spool file is not this user's own regular file (mode 0600): not written", 0);
    close(fd);
    return -1;
  }
  return fd;
}

int spool_payload(const char *data_dir, const char *agent, const char *run, const char *payload, size_t size,
                  int sent, const char *answered, char *error, size_t error_size) {
  int fd = open_own_spool(data_dir, error, error_size);
  if (fd < 0) return -1;
  struct stat status;
  fstat(fd, &status);
  char time[48];
  format_now(time, sizeof(time));
  struct buffer line = {0};
  int overflow = status.st_size >= SPOOL_MAX_BYTES;
  int built = buffer_append_text(&line, "{\"time\":\"") | buffer_append_text(&line, time) |
              buffer_append_text(&line, "\",\"agent\":\"") | buffer_append_text(&line, agent) |
              buffer_append_text(&line, "\",\"answered\":\"") | buffer_append_text(&line, answered) |
              buffer_append_text(&line, "\"");
  if (overflow) {
    built |= buffer_append_text(&line, ",\"overflow\":true}\n");
  } else {
    built |= buffer_append_text(&line, sent ? ",\"sent\":true" : ",\"sent\":false");
    if (run != NULL)
      built |= buffer_append_text(&line, ",\"run\":\"") | buffer_append_json_string(&line, run, strlen(run)) |
               buffer_append_text(&line, "\"");
    built |= buffer_append_text(&line, ",\"payload\":\"") | buffer_append_json_string(&line, payload, size) |
             buffer_append_text(&line, "\"}\n");
  }
  int result = -1;
  if (built != 0) {
    say(error, error_size, "out of memory", 0);
  } else if (status.st_size + (off_t)line.size > SPOOL_OVERFLOW_MAX_BYTES) {
    say(error, error_size, "the spool file is full (17 MiB): the event is lost", 0);
  } else if (write(fd, line.data, line.size) != (ssize_t)line.size) {
    say(error, error_size, "cannot write the spool file", errno);
  } else if (overflow) {
    say(error, error_size, "the spool file is over 16 MiB: only the event's time is kept", 0);
  } else {
    result = 0;
  }
  free(line.data);
  close(fd);
  return result;
}
