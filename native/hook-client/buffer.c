// The client's one buffer type: appends that grow it, and JSON string escaping.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook-client.h"

int buffer_append(struct buffer *buffer, const char *bytes, size_t size) {
  if (buffer->size + size + 1 > buffer->capacity) {
    size_t capacity = buffer->capacity == 0 ? 4096 : buffer->capacity;
    while (capacity < buffer->size + size + 1) capacity *= 2;
    char *grown = realloc(buffer->data, capacity);
    if (grown == NULL) return -1;
    buffer->data = grown;
    buffer->capacity = capacity;
  }
  memcpy(buffer->data + buffer->size, bytes, size);
  buffer->size += size;
  buffer->data[buffer->size] = '\0';  // always a C string too
  return 0;
}

int buffer_append_text(struct buffer *buffer, const char *text) {
  return buffer_append(buffer, text, strlen(text));
}

// Quote and backslash escaped, control bytes as \u00XX; other bytes as they are (the payload is
// the agent's UTF-8, which the daemon reads as hostile input all the same).
int buffer_append_json_string(struct buffer *buffer, const char *bytes, size_t size) {
  size_t start = 0;
  for (size_t i = 0; i < size; i++) {
    unsigned char c = (unsigned char)bytes[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    if (buffer_append(buffer, bytes + start, i - start) != 0) return -1;
    char escaped[8];
    if (c == '"' || c == '\\')
      snprintf(escaped, sizeof(escaped), "\\%c", c);
    else
      snprintf(escaped, sizeof(escaped), "\\u%04x", c);
    if (buffer_append_text(buffer, escaped) != 0) return -1;
    start = i + 1;
  }
  return buffer_append(buffer, bytes + start, size - start);
}
