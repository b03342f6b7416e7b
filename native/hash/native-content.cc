// A native line's canonical content (RFC 8785 as event-hash.ts writes it with JSON.stringify),
// read from the line's bytes. The line was already parsed and accepted by src/ingest/native.ts, so
// this does not judge it: it only refuses what it could not write byte for byte as JavaScript
// would, and JavaScript writes those contents instead.
#include "native-content.h"

#include "event-fields.h"
#include "json-string.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace provd {
namespace {

// Deeper values are left to JavaScript (JSON.stringify has no such limit, but needs no help there).
constexpr int kMaxDepth = 32;
// Integers of up to 15 digits are below 2^53: JSON.parse keeps them exactly and prints them back as
// they were written. Longer ones, fractions and exponents take JavaScript's number formatting.
constexpr size_t kMaxDigits = 15;
constexpr std::string_view kSource = "native_jsonl";  // native.ts: source of every native line

using Member = ContentMember;

bool KeyLess(const Member* a, const Member* b) { return a->key < b->key; }

class LineReader {
 public:
  // `scratch` holds each string value while it is decoded.
  LineReader(std::string_view line, std::string* scratch) : line_(line), scratch_(scratch) {}

  void SkipSpace() {
    while (at_ < line_.size()) {
      const char c = line_[at_];
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return;
      at_++;
    }
  }

  bool Consume(char c) {
    SkipSpace();
    if (at_ >= line_.size() || line_[at_] != c) return false;
    at_++;
    return true;
  }

  char Peek() {
    SkipSpace();
    return at_ < line_.size() ? line_[at_] : '\0';
  }

  bool AtEnd() {
    SkipSpace();
    return at_ == line_.size();
  }

  // The text between the quotes of the string at the reading position, and whether it holds an
  // escape. Without one, the text is what the string stands for (JSON allows no raw control
  // character in a string), and also how JSON.stringify writes it.
  bool ScanString(std::string_view* raw, bool* escaped) {
    if (!Consume('"')) return false;
    const size_t start = at_;
    *escaped = false;
    while (at_ < line_.size()) {
      const auto c = static_cast<unsigned char>(line_[at_]);
      if (c == '"') {
        *raw = line_.substr(start, at_ - start);
        at_++;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        *escaped = true;
        at_ += 2;
      } else {
        at_++;
      }
    }
    return false;
  }

  // A JSON string at the reading position, as the UTF-8 text it stands for: a view of the line, or
  // of `decoded` when it holds escapes. False on a lone surrogate or a malformed escape.
  bool ReadText(std::string_view* text, std::string* decoded) {
    std::string_view raw;
    bool escaped;
    if (!ScanString(&raw, &escaped)) return false;
    if (!escaped) {
      *text = raw;
      return true;
    }
    if (!UnescapeJson(raw, decoded, LoneSurrogate::kRefuse)) return false;
    *text = *decoded;
    return true;
  }

  bool ReadString(std::string* decoded) {
    std::string_view text;
    if (!ReadText(&text, decoded)) return false;
    if (text.data() != decoded->data()) decoded->assign(text);
    return true;
  }

  // An integer literal of at most kMaxDigits digits, as its text; false for anything else.
  bool ReadInteger(std::string_view* text, bool* negative) {
    SkipSpace();
    const size_t start = at_;
    *negative = at_ < line_.size() && line_[at_] == '-';
    if (*negative) at_++;
    const size_t digits = at_;
    while (at_ < line_.size() && line_[at_] >= '0' && line_[at_] <= '9') at_++;
    const size_t count = at_ - digits;
    if (count == 0 || count > kMaxDigits) return false;
    if (count > 1 && line_[digits] == '0') return false;
    if (at_ < line_.size() && (line_[at_] == '.' || line_[at_] == 'e' || line_[at_] == 'E')) return false;
    if (*negative && count == 1 && line_[digits] == '0') return false;  // -0 prints as 0
    *text = line_.substr(start, at_ - start);
    return true;
  }

  bool ReadLiteral(std::string_view word) {
    SkipSpace();
    if (line_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  // The canonical JSON of the value at the reading position, appended to `out`.
  bool WriteValue(std::string* out, int depth) {
    switch (Peek()) {
      case '"': {
        std::string_view raw;
        bool escaped;
        if (!ScanString(&raw, &escaped)) return false;
        if (escaped) {
          if (!UnescapeJson(raw, scratch_, LoneSurrogate::kRefuse)) return false;
          AppendJsonString(out, *scratch_);
        } else {
          out->push_back('"');
          out->append(raw);
          out->push_back('"');
        }
        return true;
      }
      case '{': return depth < kMaxDepth && WriteObject(out, depth + 1);
      case '[': return depth < kMaxDepth && WriteArray(out, depth + 1);
      case 't': return ReadLiteral("true") && (out->append("true"), true);
      case 'f': return ReadLiteral("false") && (out->append("false"), true);
      case 'n': return ReadLiteral("null") && (out->append("null"), true);
      default: {
        std::string_view text;
        bool negative;
        if (!ReadInteger(&text, &negative)) return false;
        out->append(text);
        return true;
      }
    }
  }

  // An object's members with keys in JCS order.
  bool WriteObject(std::string* out, int depth) {
    if (!Consume('{')) return false;
    std::vector<Member> members;
    if (!Consume('}')) {
      do {
        members.emplace_back();
        Member& member = members.back();
        if (!ReadKey(&member.key) || !Consume(':') || !WriteValue(&member.value, depth)) return false;
      } while (Consume(','));
      if (!Consume('}')) return false;
    }
    std::vector<const Member*> order;
    order.reserve(members.size());
    for (const Member& member : members) order.push_back(&member);
    return AppendMembers(out, &order);
  }

  bool WriteArray(std::string* out, int depth) {
    if (!Consume('[')) return false;
    out->push_back('[');
    if (!Consume(']')) {
      do {
        if (out->back() != '[') out->push_back(',');
        if (!WriteValue(out, depth)) return false;
      } while (Consume(','));
      if (!Consume(']')) return false;
    }
    out->push_back(']');
    return true;
  }

  // A key this writes in JCS order by comparing bytes: ASCII only (UTF-16 order differs from UTF-8
  // order above U+FFFF), and never __proto__ (JavaScript keeps that one out of its sorted copy).
  bool ReadKey(std::string* key) {
    if (!ReadString(key)) return false;
    for (const char c : *key)
      if (static_cast<unsigned char>(c) >= 0x80) return false;
    return *key != "__proto__";
  }

  // `{` members `}` sorted by key; false on a repeated key (JSON.parse keeps the last, in the first's place).
  static bool AppendMembers(std::string* out, std::vector<const Member*>* order) {
    std::sort(order->begin(), order->end(), KeyLess);
    out->push_back('{');
    for (size_t i = 0; i < order->size(); i++) {
      const Member* member = (*order)[i];
      if (i > 0) {
        if (member->key == (*order)[i - 1]->key) return false;
        out->push_back(',');
      }
      AppendJsonString(out, member->key);
      out->push_back(':');
      out->append(member->value);
    }
    out->push_back('}');
    return true;
  }

  // A string as JSON.stringify writes it: `"` and `\` escaped, control characters as \b \f \n \r \t
  // or \u00xx (lower-case hex), everything else as it is.
  static void AppendJsonString(std::string* out, std::string_view text) {
    static const char kHex[] = "0123456789abcdef";
    out->push_back('"');
    size_t run = 0;  // the start of the bytes not yet appended
    for (size_t at = 0; at < text.size(); at++) {
      const char c = text[at];
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && c != '"' && c != '\\') continue;
      out->append(text.data() + run, at - run);
      run = at + 1;
      out->push_back('\\');
      switch (c) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '\b': out->push_back('b'); break;
        case '\f': out->push_back('f'); break;
        case '\n': out->push_back('n'); break;
        case '\r': out->push_back('r'); break;
        case '\t': out->push_back('t'); break;
        default:
          out->append("u00");
          out->push_back(kHex[byte >> 4]);
          out->push_back(kHex[byte & 15]);
      }
    }
    out->append(text.data() + run, text.size() - run);
    out->push_back('"');
  }

 private:
  std::string_view line_;
  std::string* scratch_;
  size_t at_ = 0;
};

// A top-level field native.ts keeps out of attrs, as the content writes it.
struct Field {
  enum Kind { kLiteral, kQuoted, kEscaped };
  bool seen = false;
  Kind kind = kLiteral;
  std::string_view text = "null";  // kLiteral: JSON as it is; kQuoted: needs only quotes; kEscaped: JSON-escape it

  bool IsNull() const { return kind == kLiteral && text == "null"; }

  void Append(std::string* out) const {
    if (kind == kLiteral) {
      out->append(text);
    } else if (kind == kQuoted) {
      out->push_back('"');
      out->append(text);
      out->push_back('"');
    } else {
      LineReader::AppendJsonString(out, text);
    }
  }
};

// A string at the reading position as a Field: kQuoted when it held no escape (its raw text is how
// JSON.stringify writes it), else decoded into `storage`.
bool ReadStringField(LineReader* reader, Field* field, std::string* storage) {
  std::string_view raw;
  bool escaped;
  if (!reader->ScanString(&raw, &escaped)) return false;
  if (!escaped) {
    field->kind = Field::kQuoted;
    field->text = raw;
    return true;
  }
  if (!UnescapeJson(raw, storage, LoneSurrogate::kRefuse)) return false;
  field->kind = Field::kEscaped;
  field->text = *storage;
  return true;
}

// An id (pid, uid, ...): native.ts readUint32 (an integer in 0..2^32-1, or null).
bool ReadUint32Field(LineReader* reader, Field* field) {
  if (field->seen) return false;
  field->seen = true;
  if (reader->ReadLiteral("null")) return true;
  std::string_view text;
  bool negative;
  if (!reader->ReadInteger(&text, &negative) || negative) return false;
  if (text.size() > 10 || (text.size() == 10 && text > "4294967295")) return false;
  field->text = text;
  return true;
}

// A text (comm, cgroup_id, ...): native.ts readIdentifier ("" is null); one the fields table marks
// text_from_integer (a cgroup id) may also be a non-negative integer, kept as its decimal string.
bool ReadIdentifierField(LineReader* reader, Field* field, bool number_allowed, std::string* storage) {
  if (field->seen) return false;
  field->seen = true;
  if (reader->ReadLiteral("null")) return true;
  if (reader->Peek() != '"') {
    std::string_view text;
    bool negative;
    if (!number_allowed || !reader->ReadInteger(&text, &negative) || negative) return false;
    field->kind = Field::kQuoted;
    field->text = text;
    return true;
  }
  if (!ReadStringField(reader, field, storage)) return false;
  if (field->text.empty()) *field = Field{true};
  return true;
}

// The type's value: JavaScript names the type (aliases, classification), so it is only skipped.
bool SkipValue(LineReader* reader, std::string* scratch) {
  scratch->clear();
  return reader->WriteValue(scratch, 0);
}

// timestamp or time: null is absent; a string is the time, and both, when given, must agree.
bool ReadTime(LineReader* reader, Field* time, Field* second, std::string* time_storage,
              std::string* second_storage) {
  if (reader->ReadLiteral("null")) return true;
  if (!time->seen) {
    if (!ReadStringField(reader, time, time_storage)) return false;
    time->seen = true;
    return true;
  }
  return ReadStringField(reader, second, second_storage) && second->text == time->text;
}

// Length in UTF-16 code units of valid UTF-8 text: one per character, two above U+FFFF. ASCII
// text (nearly all) is recognised eight bytes at a time.
size_t Utf16Length(std::string_view text) {
  size_t at = 0;
  for (uint64_t word; at + 8 <= text.size(); at += 8) {
    memcpy(&word, text.data() + at, 8);
    if (word & 0x8080808080808080ULL) break;
  }
  size_t units = at;
  for (; at < text.size(); at++) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if ((byte & 0xc0) != 0x80) units++;
    if (byte >= 0xf0) units++;
  }
  return units;
}

}  // namespace

bool NativeContentWriter::Append(std::string_view line, const NativeLineFacts& facts, std::string* out,
                                 size_t* attrs_utf16) {
  const size_t size = out->size();
  if (Write(line, facts, out, attrs_utf16)) return true;
  out->resize(size);
  return false;
}

// The index in kContentFacts of the process identity fact (an id or a text) named `key`, else
// kContentFactCount: every other key of a native line is type, time, source or an attribute.
size_t IdentityFact(std::string_view key) {
  for (size_t i = 0; i < kContentFactCount; i++) {
    const FactKind kind = kContentFacts[i].kind;
    if ((kind == FactKind::kUint32 || kind == FactKind::kText) && kContentFacts[i].key == key) return i;
  }
  return kContentFactCount;
}

bool NativeContentWriter::Write(std::string_view line, const NativeLineFacts& facts, std::string* out,
                                size_t* attrs_utf16) {
  size_t used = 0;
  Field identity[kContentFactCount], time, second_time;
  // each of these may appear once: JSON.parse would keep the last of two, this the first
  bool seen_timestamp = false, seen_time = false, seen_source = false;
  LineReader reader(line, &values_);
  auto next_member = [&]() -> ContentMember& {
    if (used == members_.size()) members_.emplace_back();
    ContentMember& member = members_[used++];
    member.value.clear();
    return member;
  };

  if (!reader.Consume('{') || reader.Peek() == '}') return false;
  do {
    std::string_view key;
    if (!reader.ReadText(&key, &key_) || !reader.Consume(':')) return false;
    if (key == "type" || key == "event_type") {
      // JavaScript names the type (aliases, classification): its value is only skipped
      if (!SkipValue(&reader, &text_)) return false;
    } else if (key == "time") {
      if (seen_time || !ReadTime(&reader, &time, &second_time, &time_, &text_)) return false;
      seen_time = true;
    } else if (key == "timestamp") {
      if (seen_timestamp || !ReadTime(&reader, &time, &second_time, &time_, &text_)) return false;
      seen_timestamp = true;
    } else if (key == "source") {
      // native.ts: a source string is kept as attrs.producer
      if (seen_source) return false;
      seen_source = true;
      if (reader.ReadLiteral("null")) continue;
      ContentMember& member = next_member();
      member.key = "producer";
      Field producer;
      if (!ReadStringField(&reader, &producer, &text_)) return false;
      producer.Append(&member.value);
    } else if (const size_t fact = IdentityFact(key); fact < kContentFactCount) {
      const ContentFact& declared = kContentFacts[fact];
      if (declared.kind == FactKind::kUint32 ? !ReadUint32Field(&reader, &identity[fact])
                                             : !ReadIdentifierField(&reader, &identity[fact],
                                                                    declared.text_from_integer, &identity_[fact]))
        return false;
    } else {
      for (const char c : key)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
      if (key == "__proto__") return false;
      ContentMember& member = next_member();
      member.key.assign(key);
      if (!reader.WriteValue(&member.value, 0)) return false;
    }
  } while (reader.Consume(','));
  if (!reader.Consume('}') || !reader.AtEnd() || !time.seen) return false;
  if (!facts.observed_type.empty()) {
    ContentMember& member = next_member();
    member.key = "observed_type";
    LineReader::AppendJsonString(&member.value, facts.observed_type);
  }

  out->append("{\"attrs\":");
  const size_t attrs_start = out->size();
  order_.clear();
  for (size_t i = 0; i < used; i++) order_.push_back(&members_[i]);
  if (!LineReader::AppendMembers(out, &order_)) return false;
  *attrs_utf16 = Utf16Length(std::string_view(*out).substr(attrs_start));
  for (size_t i = 0; i < kContentFactCount; i++) {
    const ContentFact& fact = kContentFacts[i];
    if (fact.when_set && identity[i].IsNull()) continue;  // left out while null
    out->append(",\"");
    out->append(fact.key);
    out->append("\":");
    switch (fact.kind) {
      case FactKind::kSource:
        out->push_back('"');
        out->append(kSource);
        out->push_back('"');
        break;
      case FactKind::kTime: time.Append(out); break;
      case FactKind::kType: LineReader::AppendJsonString(out, facts.type); break;
      default: identity[i].Append(out);
    }
  }
  out->push_back('}');
  return true;
}

}  // namespace provd
