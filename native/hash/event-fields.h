// Generated from src/model/event-fields.ts by `npm run generate`: do not edit. The build writes it
// again and fails on any difference (src/daemon/generated-files-write.ts --check).
#ifndef PROVD_EVENT_FIELDS_H
#define PROVD_EVENT_FIELDS_H

#include <cstddef>
#include <string_view>

namespace provd {

// How a fact is written (event-fields.ts: EventFieldKind).
enum class FactKind { kType, kSource, kTime, kUint32, kText };

// One fact of the canonical content after its attrs.
struct ContentFact {
  std::string_view key;
  FactKind kind;
  bool when_set;           // left out of the content while null
  bool text_from_integer;  // the native format may send it as a non-negative JSON integer
};

// The canonical content's facts after attrs, in its key order (event-fields.ts: contentFields).
inline constexpr ContentFact kContentFacts[] = {
    {"cgroup_id", FactKind::kText, false, true},
    {"comm", FactKind::kText, false, false},
    {"container_id", FactKind::kText, false, false},
    {"login_uid", FactKind::kUint32, true, false},
    {"pid", FactKind::kUint32, false, false},
    {"ppid", FactKind::kUint32, false, false},
    {"source", FactKind::kSource, false, false},
    {"tgid", FactKind::kUint32, false, false},
    {"time", FactKind::kTime, false, false},
    {"type", FactKind::kType, false, false},
    {"uid", FactKind::kUint32, false, false},
};
inline constexpr size_t kContentFactCount = 11;

// The process identity facts in the rows file's order, after idx, type, source, time and time_ns
// and before attrs (event-row.ts: eventRowColumns), as indexes into kContentFacts.
inline constexpr size_t kRowIdentity[] = {4, 7, 5, 10, 3, 1, 0, 2};

// Where the attrs end in a canonical content: its last occurrence (event-hash.ts: attrsInContent).
inline constexpr std::string_view kAfterAttrs = ",\"cgroup_id\":";

// The index in kContentFacts of the fact named `key`, or kContentFactCount.
constexpr size_t ContentFactIndex(std::string_view key) {
  for (size_t i = 0; i < kContentFactCount; i++)
    if (kContentFacts[i].key == key) return i;
  return kContentFactCount;
}

}  // namespace provd

#endif
