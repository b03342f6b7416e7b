// provd-hook AGENT [--socket PATH]: an agent's hook command (src/agents/hook-command.ts). Reads the
// hook payload on stdin (at most 1 MiB), sends it to the daemon's hook socket with
// run=$PROVD_RUN when set, prints the daemon's answer on stdout and exits 0: the three agents read
// a deny from stdout's JSON, so the answer, never the exit code, carries the decision.
//
// When no daemon answers, `<data dir>/hooks.json` decides (on_daemon_down, written by the daemon;
// absent: fail_open): `{}`, or a PreToolUse denied in the agent's own shape saying the daemon is
// down; the event is spooled for the daemon's next start (spool.c). The data dir is the socket's
// directory. Exit 1 on a usage error (the agents go on and show stderr).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook-client.h"

static const char usage[] = "usage: provd-hook AGENT [--socket PATH] < PAYLOAD (AGENT: claude, codex, gemini)\n";

// Each agent's name for the event before a tool runs, and its deny answer.
struct agent {
  const char *name;
  const char *pre_tool_event;
  const char *deny_format;  // one %s: the reason
};

static const struct agent agents[] = {
    {"claude", "PreToolUse",
     "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\","
     "\"permissionDecisionReason\":\"%s\"}}\n"},
    {"codex", "PreToolUse",
     "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\","
     "\"permissionDecisionReason\":\"%s\"}}\n"},
    {"gemini", "BeforeTool", "{\"decision\":\"deny\",\"reason\":\"%s\"}\n"},
};

static const char down_reason[] =
    "provd: the daemon is down and its policy fails closed (hooks.on_daemon_down: fail_closed); "
    "the event is spooled for its next start";
static const char refused_reason[] =
    "provd: the daemon refused the hook event and its policy fails closed (hooks.on_daemon_down: fail_closed)";
static const char forbidden_reason[] =
    "provd: the daemon refused this hook as not the agent's own (403: see docs/agents.md, Who may send a hook); "
    "a tool call it cannot judge is denied";

static int read_payload(struct buffer *payload) {
  char chunk[65536];
  for (;;) {
    ssize_t got = read(STDIN_FILENO, chunk, sizeof(chunk));
    if (got == 0) return 0;
    if (got < 0) return -1;
    if (payload->size + (size_t)got > HOOK_MAX_PAYLOAD) return 1;
    if (buffer_append(payload, chunk, (size_t)got) != 0) return -1;
  }
}

// The value of a top-level string field of a JSON object, when it is a plain word (the event
// names are); nested objects and strings are stepped over, so a tool's input cannot pose as it.
static int top_level_word(const char *json, size_t size, const char *key, char *out, size_t out_size) {
  size_t key_size = strlen(key);
  int depth = 0;
  for (size_t i = 0; i < size; i++) {
    char c = json[i];
    if (c == '{' || c == '[') depth++;
    if (c == '}' || c == ']') depth--;
    if (c != '"') continue;
    size_t start = ++i;
    while (i < size && json[i] != '"') i += json[i] == '\\' ? 2 : 1;
    if (depth != 1 || i - start != key_size || memcmp(json + start, key, key_size) != 0) continue;
    size_t at = i + 1;
    while (at < size && (json[at] == ' ' || json[at] == '\t' || json[at] == '\r' || json[at] == '\n')) at++;
    if (at >= size || json[at] != ':') continue;
    at++;
    while (at < size && (json[at] == ' ' || json[at] == '\t' || json[at] == '\r' || json[at] == '\n')) at++;
    if (at >= size || json[at] != '"') return -1;
    size_t length = 0;
    for (at++; at < size && json[at] != '"' && length + 1 < out_size; at++) {
      char letter = json[at];
      if (!((letter >= 'A' && letter <= 'Z') || (letter >= 'a' && letter <= 'z'))) return -1;
      out[length++] = letter;
    }
    out[length] = '\0';
    return 0;
  }
  return -1;
}

static int fails_closed(const char *data_dir) {
  char path[4096], settings[4096];
  snprintf(path, sizeof(path), "%s/hooks.json", data_dir);
  FILE *file = fopen(path, "re");
  if (file == NULL) return 0;
  size_t got = fread(settings, 1, sizeof(settings) - 1, file);
  fclose(file);
  settings[got] = '\0';
  // the daemon writes exactly {"on_daemon_down":"fail_open"|"fail_closed"}
  return strstr(settings, "\"on_daemon_down\":\"fail_closed\"") != NULL;
}

static char *default_socket(void) {
  const char *socket = getenv("PROVD_HOOK_SOCKET");
  if (socket != NULL && socket[0] != '\0') return strdup(socket);
  const char *home = getenv("PROVD_HOME"), *xdg = getenv("XDG_DATA_HOME"), *user_home = getenv("HOME");
  char path[4096];
  if (home != NULL && home[0] != '\0')
    snprintf(path, sizeof(path), "%s/hooks.sock", home);
  else if (xdg != NULL && xdg[0] != '\0')
    snprintf(path, sizeof(path), "%s/provd/hooks.sock", xdg);
  else
    snprintf(path, sizeof(path), "%s/.local/share/provd/hooks.sock", user_home == NULL ? "" : user_home);
  return strdup(path);
}

int main(int argc, char **argv) {
  const struct agent *agent = NULL;
  char *socket_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) {
      socket_path = strdup(argv[++i]);
    } else if (agent == NULL && argv[i][0] != '-') {
      for (size_t a = 0; a < sizeof(agents) / sizeof(agents[0]); a++)
        if (strcmp(argv[i], agents[a].name) == 0) agent = &agents[a];
      if (agent == NULL) {
        fprintf(stderr, "provd-hook: unknown agent \"%s\"\n%s", argv[i], usage);
        return 1;
      }
    } else {
      fprintf(stderr, "provd-hook: unexpected argument \"%s\"\n%s", argv[i], usage);
      return 1;
    }
  }
  if (agent == NULL) {
    fputs(usage, stderr);
    return 1;
  }
  if (socket_path == NULL) socket_path = default_socket();
  char *data_dir = strdup(socket_path);
  char *slash = strrchr(data_dir, '/');
  if (slash == NULL)
    strcpy(data_dir, ".");
  else
    *slash = '\0';
  const char *run = getenv("PROVD_RUN");
  if (run != NULL && run[0] == '\0') run = NULL;

  struct buffer payload = {0};
  buffer_append(&payload, "", 0);
  int read_status = read_payload(&payload);
  char event[32] = "";
  top_level_word(payload.data, payload.size, "hook_event_name", event, sizeof(event));
  int pre_tool = strcmp(event, agent->pre_tool_event) == 0;

  struct daemon_answer answer = {0};
  if (read_status == 0) {
    request_daemon(socket_path, agent->name, run, payload.data, payload.size, &answer);
    if (answer.status == 200) {
      fwrite(answer.body.data, 1, answer.body.size, stdout);
      return 0;
    }
  } else if (read_status == 1) {
    snprintf(answer.error, sizeof(answer.error), "the hook payload is over 1 MiB (%d bytes): not sent", HOOK_MAX_PAYLOAD);
  } else {
    snprintf(answer.error, sizeof(answer.error), "cannot read the hook payload on stdin");
  }

  // no answer from the daemon: hooks.json decides; a caller the daemon refused as not the agent's own
  // hook (403) gets no allow it could pass off as the policy's, whatever hooks.json says
  int forbidden = answer.status == 403;
  int deny = pre_tool && (forbidden || fails_closed(data_dir));
  if (answer.status != 0) {
    // the daemon refused the event (it said why, and counted it): nothing to spool
    fprintf(stderr, "provd-hook: the daemon refused the hook event (HTTP %d): %.*s\n", answer.status,
            (int)(answer.body.size > 400 ? 400 : answer.body.size), answer.body.data == NULL ? "" : answer.body.data);
  } else {
    fprintf(stderr, "provd-hook: %s (%s); answered %s by hooks.on_daemon_down\n", answer.error, socket_path,
            deny ? "deny" : "allow");
    if (read_status == 0) {
      char error[256];
      if (spool_payload(data_dir, agent->name, run, payload.data, payload.size, answer.sent, deny ? "deny" : "allow",
                        error, sizeof(error)) != 0)
        fprintf(stderr, "provd-hook: spooling the event: %s\n", error);
    }
  }
  if (deny)
    printf(agent->deny_format, forbidden ? forbidden_reason : answer.status != 0 ? refused_reason : down_reason);
  else
    fputs("{}\n", stdout);
  return 0;
}
