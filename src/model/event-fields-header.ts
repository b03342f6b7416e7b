/**
 * native/hash/event-fields.h, the fields table (event-fields.ts) as the native writers read it:
 * rows.cc takes each fact from a canonical content and writes the rows file, native-content.cc
 * builds a native line's canonical content. Written by `npm run generate`; the build fails when the
 * committed header differs (src/daemon/generated-files-write.ts).
 */
import { afterAttrsMarker, contentFields, eventFields, type EventField } from './event-fields.js';

/** The header's path from the repository root. */
export const eventFieldsHeaderPath = 'native/hash/event-fields.h';

const factKinds: Partial<Record<EventField['kind'], string>> = {
  type: 'kType',
  source: 'kSource',
  time: 'kTime',
  uint32: 'kUint32',
  text: 'kText',
};

/** The fields of the rows file the native writer writes one by one: the record order after time_ns. */
function rowIdentity(): readonly EventField[] {
  const keys = eventFields.map((field) => field.key).join(',');
  const fixed = 'type,source,time,time_ns,';
  if (!keys.startsWith(fixed) || !keys.endsWith(',attrs')) {
    throw new Error(`event-fields.ts: rows.cc writes ${fixed}<identity>,attrs; the table has ${keys}`);
  }
  return eventFields.filter((field: EventField) => field.kind === 'uint32' || field.kind === 'text');
}

/** A C++ string literal of ASCII text. */
const cString = (text: string): string => JSON.stringify(text);

/** The header's text. */
export function eventFieldsHeader(): string {
  const facts = contentFields.filter((field) => field.kind !== 'attrs');
  const factLines = facts.map((field) => {
    const kind = factKinds[field.kind];
    if (kind === undefined)
      throw new Error(`event-fields.ts: ${field.key}: no native kind for ${field.kind}`);
    const whenSet = field.content === 'when_set';
    const fromInteger = field.textFromInteger === true;
    return `    {${cString(field.key)}, FactKind::${kind}, ${whenSet}, ${fromInteger}},`;
  });
  const rowIndexes = rowIdentity().map((field) => facts.indexOf(field));
  return `// Generated from src/model/event-fields.ts by \`npm run generate\`: do not edit. The build writes it
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
${factLines.join('\n')}
};
inline constexpr size_t kContentFactCount = ${facts.length};

// The process identity facts in the rows file's order, after idx, type, source, time and time_ns
// and before attrs (event-row.ts: eventRowColumns), as indexes into kContentFacts.
inline constexpr size_t kRowIdentity[] = {${rowIndexes.join(', ')}};

// Where the attrs end in a canonical content: its last occurrence (event-hash.ts: attrsInContent).
inline constexpr std::string_view kAfterAttrs = ${cString(afterAttrsMarker)};

// The index in kContentFacts of the fact named \`key\`, or kContentFactCount.
constexpr size_t ContentFactIndex(std::string_view key) {
  for (size_t i = 0; i < kContentFactCount; i++)
    if (kContentFacts[i].key == key) return i;
  return kContentFactCount;
}

}  // namespace provd

#endif
`;
}
