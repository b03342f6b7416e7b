// The rows file of a slice, written from the events' canonical contents: each line of `contents`
// is one event's canonical JSON (src/telemetry/event-hash.ts: canonicalContent), from which this
// hashes the event and takes its stored facts, and the typed columns carry what the content does
// not. The row format is src/telemetry/event-row.ts's (encodeEventRow writes the same bytes in
// JavaScript; test/telemetry/event-row.test.ts holds the two to that).
#include "rows.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "event-fields.h"
#include "json-string.h"
#include "sha256.h"

namespace provd {
namespace {

constexpr char kQuote = '\x1e';  // must match src/store/csv-rows.ts: csvQuote
constexpr uint8_t kRisky = 1;    // must match event-row.ts: rowFlags
constexpr uint8_t kJudged = 2;
constexpr uint8_t kUnstorablePid = 4;

constexpr size_t kTime = ContentFactIndex("time");
constexpr size_t kPid = ContentFactIndex("pid");
static_assert(kTime < kContentFactCount && kPid < kContentFactCount, "event-fields.h names time and pid");

// One JSON value of the content: a string (its escaped text, without quotes), null, or a number.
struct Value {
  bool null = true;
  bool string = false;
  std::string_view text;
};

class ContentReader {
 public:
  explicit ContentReader(std::string_view line) : line_(line) {}

  // attrs: everything between `{"attrs":` and the last `,"cgroup_id":`
  bool ReadAttrs(std::string_view* attrs) {
    constexpr std::string_view open = "{\"attrs\":";
    if (line_.substr(0, open.size()) != open) return false;
    const size_t end = line_.rfind(kAfterAttrs);
    if (end == std::string_view::npos || end < open.size()) return false;
    *attrs = line_.substr(open.size(), end - open.size());
    at_ = end;
    return true;
  }

  // whether `,"<key>":` is at the reading position
  bool AtField(std::string_view key) const {
    const std::string_view rest = line_.substr(at_);
    return rest.size() > key.size() + 4 && rest.substr(0, 2) == ",\"" && rest.substr(2, key.size()) == key &&
           rest.substr(2 + key.size(), 2) == "\":";
  }

  // `,"<key>":<value>` at the reading position
  bool ReadField(std::string_view key, Value* value) {
    if (!Expect(",\"") || !Expect(key) || !Expect("\":")) return false;
    if (Expect("null")) {
      *value = Value{};
      return true;
    }
    if (at_ < line_.size() && line_[at_] == '"') {
      const size_t start = ++at_;
      while (at_ < line_.size() && line_[at_] != '"') at_ += line_[at_] == '\\' ? 2 : 1;
      if (at_ >= line_.size()) return false;
      *value = Value{false, true, line_.substr(start, at_ - start)};
      at_++;
      return true;
    }
    const size_t start = at_;
    while (at_ < line_.size() && line_[at_] != ',' && line_[at_] != '}') at_++;
    if (at_ == start) return false;
    *value = Value{false, false, line_.substr(start, at_ - start)};
    return true;
  }

  bool AtEnd() { return Expect("}") && at_ == line_.size(); }

 private:
  bool Expect(std::string_view text) {
    if (line_.substr(at_, text.size()) != text) return false;
    at_ += text.size();
    return true;
  }

  std::string_view line_;
  size_t at_ = 0;
};

// A CSV text field as src/store/csv-rows.ts: csvText() writes it: quoted with kQuote (doubled inside), with a
// second U+FEFF in front of one that starts the value (DuckDB's reader drops one there).
void AppendText(std::string* row, std::string_view text) {
  row->push_back(kQuote);
  if (text.substr(0, 3) == "\xef\xbb\xbf") row->append("\xef\xbb\xbf");
  size_t run = 0;  // the start of the bytes not yet appended
  for (size_t at = 0; at < text.size(); at++) {
    if (text[at] != kQuote) continue;
    row->append(text.data() + run, at + 1 - run);
    row->push_back(kQuote);  // doubled
    run = at + 1;
  }
  row->append(text.data() + run, text.size() - run);
  row->push_back(kQuote);
}

bool AppendStringField(std::string* row, const Value& value, std::string* scratch) {
  if (value.null) return true;  // NULL: nothing between the commas
  if (!value.string) return false;
  // without a backslash the escaped form is the text itself (canonical JSON escapes no other way)
  if (value.text.find('\\') == std::string_view::npos) {
    AppendText(row, value.text);
    return true;
  }
  if (!UnescapeJson(value.text, scratch, LoneSurrogate::kReplace)) return false;
  AppendText(row, *scratch);
  return true;
}

bool AppendIntegerField(std::string* row, const Value& value) {
  if (value.null) return true;
  if (value.string) return false;
  row->append(value.text);
  return true;
}

void AppendInteger(std::string* row, long long value) {
  char digits[24];
  char* end = digits + sizeof(digits);
  char* at = end;
  unsigned long long magnitude = value < 0 ? 0ULL - static_cast<unsigned long long>(value) : value;
  do {
    *--at = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  if (value < 0) *--at = '-';
  row->append(at, static_cast<size_t>(end - at));
}

void AppendHex(std::string* row, const uint8_t* digest) {
  static const char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < kSha256Bytes; i++) {
    row->push_back(kHex[digest[i] >> 4]);
    row->push_back(kHex[digest[i] & 15]);
  }
}

// One event's row; false when its content is not canonical content as event-hash.ts writes it.
bool AppendRow(std::string* out, size_t idx, std::string_view line, const uint8_t* digest, const RowColumns& columns,
               std::string* scratch) {
  ContentReader reader(line);
  std::string_view attrs;
  Value facts[kContentFactCount];
  if (!reader.ReadAttrs(&attrs)) return false;
  for (size_t i = 0; i < kContentFactCount; i++) {
    const ContentFact& fact = kContentFacts[i];
    if (fact.when_set && !reader.AtField(fact.key)) continue;  // left out while null
    if (!reader.ReadField(fact.key, &facts[i]) || (fact.when_set && facts[i].null)) return false;
  }
  if (!reader.AtEnd()) return false;
  const uint8_t flags = columns.flags[idx];
  AppendInteger(out, static_cast<long long>(idx));
  out->push_back(',');
  AppendInteger(out, columns.type[idx]);
  out->push_back(',');
  AppendInteger(out, columns.source[idx]);
  out->push_back(',');
  if (!AppendStringField(out, facts[kTime], scratch)) return false;
  out->push_back(',');
  AppendInteger(out, static_cast<long long>(columns.time_ns[idx]));
  for (const size_t i : kRowIdentity) {
    out->push_back(',');
    if (i == kPid && (flags & kUnstorablePid)) out->append("-1");
    else if (kContentFacts[i].kind == FactKind::kUint32 ? !AppendIntegerField(out, facts[i])
                                                        : !AppendStringField(out, facts[i], scratch))
      return false;
  }
  out->push_back(',');
  out->push_back(kQuote);
  out->append(attrs);  // canonical JSON escapes every control character: it holds no kQuote
  out->push_back(kQuote);
  out->push_back(',');
  AppendHex(out, digest);
  out->append(flags & kRisky ? ",true," : ",false,");
  AppendInteger(out, static_cast<long long>(columns.bytes[idx]));
  out->append(flags & kJudged ? ",true" : ",false");
  out->append((*columns.correlations)[columns.correlation[idx]]);  // its own newline included
  return true;
}

// The message of a failed write, naming the errno (ENOSPC: the caller reports a full disk).
std::string Failure(int error) {
  return "failed to write the rows file: " + std::string(strerrorname_np(error)) + " " + strerror(error);
}

}  // namespace

std::string WriteRows(const std::string& path, const uint8_t* contents, size_t size, const RowColumns& columns,
                      size_t events, std::vector<uint8_t>* digests) {
  digests->resize(events * kSha256Bytes);
  std::string out;
  out.reserve(size * 2);
  std::string scratch;
  const uint8_t* start = contents;
  const uint8_t* const end = contents + size;
  for (size_t idx = 0; idx < events; idx++) {
    const uint8_t* newline = static_cast<const uint8_t*>(memchr(start, '\n', end - start));
    if (newline == nullptr) return "failed to write the rows file: fewer contents than events";
    uint8_t* digest = digests->data() + idx * kSha256Bytes;
    Sha256(start, newline - start, digest);
    const std::string_view line(reinterpret_cast<const char*>(start), newline - start);
    if (!AppendRow(&out, idx, line, digest, columns, &scratch))
      return "failed to write the rows file: event " + std::to_string(idx) + " is not canonical content";
    start = newline + 1;
  }
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Failure(errno);
  for (size_t written = 0; written < out.size();) {
    const ssize_t n = write(fd, out.data() + written, out.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      unlink(path.c_str());
      return Failure(error);
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    const int error = errno;
    unlink(path.c_str());
    return Failure(error);
  }
  return "";
}

}  // namespace provd
