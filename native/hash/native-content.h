// The canonical content of an event straight from its line of the native format
// (src/ingest/native-format.md), without building it in JavaScript. Must match
// src/telemetry/event-hash.ts: canonicalContent of what src/ingest/native.ts parses from the line.
#ifndef PROVD_NATIVE_CONTENT_H
#define PROVD_NATIVE_CONTENT_H

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "event-fields.h"

namespace provd {

// What JavaScript decided about a native line's event: its type after classification, and the
// parser's type when classification changed it (attrs.observed_type), else empty.
struct NativeLineFacts {
  std::string_view type;
  std::string_view observed_type;
};

// An attribute as the content writes it: its key (ASCII) and its canonical JSON.
struct ContentMember {
  std::string key;
  std::string value;
};

// Writes canonical contents of native lines, one after another; it keeps its buffers between lines.
class NativeContentWriter {
 public:
  // Appends the event's canonical content (no newline) to `out` and sets `attrs_utf16` to the length
  // of its attrs JSON in UTF-16 code units (as JavaScript's .length counts it). Returns false, with
  // `out` as it was, when the line holds anything this does not write exactly as event-hash.ts does
  // (a fraction or exponent, a long integer, a non-ASCII or repeated key, deep nesting...): the
  // caller then builds that event's content in JavaScript.
  bool Append(std::string_view line, const NativeLineFacts& facts, std::string* out, size_t* attrs_utf16);

 private:
  bool Write(std::string_view line, const NativeLineFacts& facts, std::string* out, size_t* attrs_utf16);

  std::vector<ContentMember> members_;
  std::vector<const ContentMember*> order_;
  std::string key_, values_, text_, time_;
  std::string identity_[kContentFactCount];  // the texts of identity facts that held an escape, decoded
};

}  // namespace provd

#endif
