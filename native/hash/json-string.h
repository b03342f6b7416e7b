// Decoding of JSON strings' escaped forms, shared by the rows writer (rows.cc) and the native
// contents (native-content.cc).
#ifndef PROVD_JSON_STRING_H
#define PROVD_JSON_STRING_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace provd {

// What a lone UTF-16 surrogate escape (\ud800-\udfff unpaired) becomes when unescaped.
enum class LoneSurrogate {
  kReplace,  // U+FFFD, as JavaScript's UTF-8 encoder writes it
  kRefuse,   // the string is refused
};

inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline bool ReadHex4(std::string_view text, size_t at, uint32_t* code) {
  if (at + 4 > text.size()) return false;
  uint32_t value = 0;
  for (size_t i = 0; i < 4; i++) {
    const int digit = HexDigit(text[at + i]);
    if (digit < 0) return false;
    value = value * 16 + static_cast<uint32_t>(digit);
  }
  *code = value;
  return true;
}

inline void AppendUtf8(std::string* out, uint32_t code) {
  if (code < 0x80) {
    out->push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (code >> 6)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (code >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (code >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

// The text a JSON string's escaped form (between its quotes) stands for, as UTF-8, into `out`;
// false on a malformed escape, or on a lone surrogate when `lone` is kRefuse.
inline bool UnescapeJson(std::string_view escaped, std::string* out, LoneSurrogate lone) {
  out->clear();
  for (size_t at = 0; at < escaped.size(); at++) {
    const char c = escaped[at];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (++at >= escaped.size()) return false;
    switch (escaped[at]) {
      case '"': out->push_back('"'); break;
      case '\\': out->push_back('\\'); break;
      case '/': out->push_back('/'); break;
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'u': {
        uint32_t code;
        if (!ReadHex4(escaped, at + 1, &code)) return false;
        at += 4;
        if (code >= 0xd800 && code <= 0xdbff && at + 6 < escaped.size() && escaped[at + 1] == '\\' &&
            escaped[at + 2] == 'u') {
          uint32_t low;
          if (ReadHex4(escaped, at + 3, &low) && low >= 0xdc00 && low <= 0xdfff) {
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            at += 6;
          }
        }
        const bool surrogate = code >= 0xd800 && code <= 0xdfff;  // still: unpaired
        if (surrogate && lone == LoneSurrogate::kRefuse) return false;
        AppendUtf8(out, surrogate ? 0xfffd : code);
        break;
      }
      default: return false;
    }
  }
  return true;
}

}  // namespace provd

#endif
