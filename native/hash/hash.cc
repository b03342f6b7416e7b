// Batch work of the normalize pool, a slice of events per call: their content hashes, the Merkle
// roots over them, and their rows file (rows.cc). SHA-256 is OpenSSL's, as Node itself exports it
// (so the CPU's SHA extensions are used); the addon links nothing of its own.
// Loaded by src/provenance/batch-hash.ts, which holds the same functions in JavaScript.
#include <napi.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "malloc-arenas.h"
#include "native-content.h"
#include "peer-credentials.h"
#include "rows.h"
#include "sha256.h"

namespace {

constexpr size_t kDigest = provd::kSha256Bytes;
using provd::Sha256;

// sha256Lines(input: Uint8Array): Buffer
// The SHA-256 of each '\n'-terminated line of `input` (without its newline), 32 bytes per line in
// order. Bytes after the last newline are not a line.
Napi::Value Sha256Lines(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsTypedArray())
    throw Napi::TypeError::New(env, "failed to hash lines: expected a Uint8Array");
  auto input = info[0].As<Napi::Uint8Array>();
  const uint8_t* data = input.Data();
  const size_t size = input.ByteLength();
  size_t lines = 0;
  for (const uint8_t* at = data; (at = static_cast<const uint8_t*>(memchr(at, '\n', data + size - at))) != nullptr; at++)
    lines++;
  auto out = Napi::Buffer<uint8_t>::New(env, lines * kDigest);
  uint8_t* digest = out.Data();
  const uint8_t* start = data;
  for (size_t line = 0; line < lines; line++) {
    const uint8_t* end = static_cast<const uint8_t*>(memchr(start, '\n', data + size - start));
    Sha256(start, end - start, digest);
    digest += kDigest;
    start = end + 1;
  }
  return out;
}

// The RFC 6962 tree over `leaves` (32 bytes each), in place: interior nodes are
// sha256(0x01 || left || right), an odd node is carried up unchanged; no leaf hashes the empty string.
void MerkleRoot(std::vector<uint8_t>& level, size_t count, uint8_t* root) {
  if (count == 0) {
    Sha256(nullptr, 0, root);
    return;
  }
  uint8_t node[1 + 2 * kDigest];
  node[0] = 1;
  while (count > 1) {
    size_t next = 0;
    for (size_t i = 0; i < count; i += 2, next++) {
      uint8_t* target = level.data() + next * kDigest;
      if (i + 1 == count) {
        memmove(target, level.data() + i * kDigest, kDigest);
        continue;
      }
      memcpy(node + 1, level.data() + i * kDigest, 2 * kDigest);
      Sha256(node, sizeof(node), target);
    }
    count = next;
  }
  memcpy(root, level.data(), kDigest);
}

// merkleRoots(digests: Uint8Array, groups: Uint32Array, groupCount: number): Buffer
// One Merkle root per group (32 bytes each, by group number): the leaves of group g are the
// digests i with groups[i] == g, in order.
Napi::Value MerkleRoots(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3 || !info[0].IsTypedArray() || !info[1].IsTypedArray() || !info[2].IsNumber())
    throw Napi::TypeError::New(env, "failed to build Merkle roots: expected (Uint8Array, Uint32Array, number)");
  auto digests = info[0].As<Napi::Uint8Array>();
  auto groups = info[1].As<Napi::Uint32Array>();
  const int64_t groupCount = info[2].As<Napi::Number>().Int64Value();
  const size_t leaves = groups.ElementLength();
  if (groupCount < 0 || digests.ByteLength() != leaves * kDigest)
    throw Napi::RangeError::New(env, "failed to build Merkle roots: one group per 32-byte digest");
  std::vector<std::vector<uint8_t>> levels(groupCount);
  for (size_t i = 0; i < leaves; i++) {
    const uint32_t group = groups[i];
    if (group >= static_cast<uint64_t>(groupCount))
      throw Napi::RangeError::New(env, "failed to build Merkle roots: a group number past groupCount");
    const uint8_t* leaf = digests.Data() + i * kDigest;
    levels[group].insert(levels[group].end(), leaf, leaf + kDigest);
  }
  auto out = Napi::Buffer<uint8_t>::New(env, groupCount * kDigest);
  for (int64_t g = 0; g < groupCount; g++)
    MerkleRoot(levels[g], levels[g].size() / kDigest, out.Data() + g * kDigest);
  return out;
}

template <typename Array>
Array Column(const Napi::CallbackInfo& info, size_t index, size_t events, const char* name, napi_typedarray_type type) {
  if (!info[index].IsTypedArray() || info[index].As<Napi::TypedArray>().TypedArrayType() != type)
    throw Napi::TypeError::New(info.Env(), std::string("failed to write the rows file: ") + name + " is not the typed array it should be");
  Array column = info[index].As<Array>();
  if (column.ElementLength() != events)
    throw Napi::RangeError::New(info.Env(), std::string("failed to write the rows file: ") + name + " has a length other than the events'");
  return column;
}

// writeRows(path: string, contents: Uint8Array, type: Uint8Array, source: Uint8Array,
//   timeNs: BigInt64Array, flags: Uint8Array, bytes: Float64Array, correlation: Uint32Array,
//   correlations: string[]): Buffer
// Writes the rows file of a slice (rows.cc) and returns its events' content hashes, 32 bytes each.
Napi::Value WriteRows(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 9 || !info[0].IsString() || !info[8].IsArray())
    throw Napi::TypeError::New(env, "failed to write the rows file: expected (path, contents, 6 columns, correlations)");
  const std::string path = info[0].As<Napi::String>().Utf8Value();
  if (!info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    throw Napi::TypeError::New(env, "failed to write the rows file: contents is not a Uint8Array");
  auto contents = info[1].As<Napi::Uint8Array>();
  if (!info[2].IsTypedArray()) throw Napi::TypeError::New(env, "failed to write the rows file: type is not a Uint8Array");
  const size_t events = info[2].As<Napi::TypedArray>().ElementLength();
  auto type = Column<Napi::Uint8Array>(info, 2, events, "type", napi_uint8_array);
  auto source = Column<Napi::Uint8Array>(info, 3, events, "source", napi_uint8_array);
  auto timeNs = Column<Napi::BigInt64Array>(info, 4, events, "timeNs", napi_bigint64_array);
  auto flags = Column<Napi::Uint8Array>(info, 5, events, "flags", napi_uint8_array);
  auto bytes = Column<Napi::Float64Array>(info, 6, events, "bytes", napi_float64_array);
  auto correlation = Column<Napi::Uint32Array>(info, 7, events, "correlation", napi_uint32_array);
  auto list = info[8].As<Napi::Array>();
  std::vector<std::string> correlations(list.Length());
  for (uint32_t i = 0; i < list.Length(); i++) {
    Napi::Value item = list.Get(i);
    if (!item.IsString()) throw Napi::TypeError::New(env, "failed to write the rows file: a correlation is not a string");
    correlations[i] = item.As<Napi::String>().Utf8Value();
  }
  for (size_t i = 0; i < events; i++)
    if (correlation[i] >= correlations.size())
      throw Napi::RangeError::New(env, "failed to write the rows file: a correlation index past the list");
  const provd::RowColumns columns{type.Data(), source.Data(), timeNs.Data(), flags.Data(), bytes.Data(),
                                  correlation.Data(), &correlations};
  std::vector<uint8_t> digests;
  const std::string failure = provd::WriteRows(path, contents.Data(), contents.ByteLength(), columns, events, &digests);
  if (!failure.empty()) throw Napi::Error::New(env, failure);
  return Napi::Buffer<uint8_t>::Copy(env, digests.data(), digests.size());
}

// nativeContents(slice: Uint8Array, lines: Uint32Array, types: Uint8Array, observed: Uint8Array,
//   typeNames: string[], fallback: Uint8Array, skipBom: boolean):
//   { contents: Buffer | null, attrsLength: Uint32Array, refused: Uint32Array }
// The canonical contents of a slice's events, '\n'-terminated in order, as writeRows takes them.
// Event i's content is built from line lines[i] (1-based) of the native-format `slice`
// (native-content.cc), with type typeNames[types[i]] and observed_type typeNames[observed[i] - 1]
// (0: none); an event with lines[i] == 0 takes the next content of `fallback` instead. attrsLength
// is the UTF-16 length of each built content's attrs (0 for fallback ones). When some line could
// not be built exactly, contents is null and refused lists those events.
Napi::Value NativeContents(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* usage = "failed to build contents: expected (Uint8Array, Uint32Array, Uint8Array, Uint8Array, string[], Uint8Array, boolean)";
  if (info.Length() != 7 || !info[4].IsArray() || !info[6].IsBoolean()) throw Napi::TypeError::New(env, usage);
  const napi_typedarray_type kinds[] = {napi_uint8_array, napi_uint32_array, napi_uint8_array, napi_uint8_array};
  for (size_t i = 0; i < 4; i++)
    if (!info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != kinds[i])
      throw Napi::TypeError::New(env, usage);
  if (!info[5].IsTypedArray() || info[5].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    throw Napi::TypeError::New(env, usage);
  auto slice = info[0].As<Napi::Uint8Array>();
  auto lines = info[1].As<Napi::Uint32Array>();
  auto types = info[2].As<Napi::Uint8Array>();
  auto observed = info[3].As<Napi::Uint8Array>();
  auto nameList = info[4].As<Napi::Array>();
  auto fallback = info[5].As<Napi::Uint8Array>();
  const bool skipBom = info[6].As<Napi::Boolean>().Value();
  const size_t events = lines.ElementLength();
  if (types.ElementLength() != events || observed.ElementLength() != events)
    throw Napi::RangeError::New(env, "failed to build contents: lines, types and observed differ in length");
  std::vector<std::string> names(nameList.Length());
  for (uint32_t i = 0; i < nameList.Length(); i++) {
    Napi::Value name = nameList.Get(i);
    if (!name.IsString()) throw Napi::TypeError::New(env, "failed to build contents: a type name is not a string");
    names[i] = name.As<Napi::String>().Utf8Value();
  }

  const char* data = reinterpret_cast<const char*>(slice.Data());
  const size_t size = slice.ByteLength();
  const char* fallbackAt = reinterpret_cast<const char*>(fallback.Data());
  const char* const fallbackEnd = fallbackAt + fallback.ByteLength();
  auto owned = std::make_unique<std::string>();  // handed to the Buffer below, without a copy
  std::string& out = *owned;
  out.reserve(size + size / 4 + fallback.ByteLength());
  auto attrsLength = Napi::Uint32Array::New(env, events);
  std::vector<uint32_t> refused;
  provd::NativeContentWriter writer;
  size_t lineNumber = 1;  // the line starting at `lineStart`
  size_t lineStart = skipBom && size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
  for (size_t i = 0; i < events; i++) {
    attrsLength[i] = 0;
    if (lines[i] == 0) {
      const char* end = static_cast<const char*>(memchr(fallbackAt, '\n', fallbackEnd - fallbackAt));
      if (end == nullptr) throw Napi::RangeError::New(env, "failed to build contents: fewer fallback contents than events");
      out.append(fallbackAt, end + 1 - fallbackAt);
      fallbackAt = end + 1;
      continue;
    }
    if (lines[i] < lineNumber) throw Napi::RangeError::New(env, "failed to build contents: lines out of order");
    while (lineNumber < lines[i]) {
      const char* end = static_cast<const char*>(memchr(data + lineStart, '\n', size - lineStart));
      if (end == nullptr) throw Napi::RangeError::New(env, "failed to build contents: a line past the slice");
      lineStart = end + 1 - data;
      lineNumber++;
    }
    const char* newline = static_cast<const char*>(memchr(data + lineStart, '\n', size - lineStart));
    size_t lineEnd = newline == nullptr ? size : newline - data;
    if (lineEnd > lineStart && data[lineEnd - 1] == '\r') lineEnd--;
    if (types[i] >= names.size() || observed[i] > names.size())
      throw Napi::RangeError::New(env, "failed to build contents: a type code past the names");
    const provd::NativeLineFacts facts{names[types[i]], observed[i] == 0 ? std::string_view() : names[observed[i] - 1]};
    size_t attrs = 0;
    if (writer.Append(std::string_view(data + lineStart, lineEnd - lineStart), facts, &out, &attrs)) {
      out.push_back('\n');
      attrsLength[i] = static_cast<uint32_t>(attrs);
    } else {
      refused.push_back(static_cast<uint32_t>(i));
    }
  }
  Napi::Object result = Napi::Object::New(env);
  if (refused.empty()) {
    std::string* text = owned.release();
    result.Set("contents", Napi::Buffer<char>::New(env, text->data(), text->size(),
                                                   [](Napi::Env, char*, std::string* done) { delete done; }, text));
  } else {
    result.Set("contents", env.Null());
  }
  result.Set("attrsLength", attrsLength);
  auto refusedArray = Napi::Uint32Array::New(env, refused.size());
  if (!refused.empty()) memcpy(refusedArray.Data(), refused.data(), refused.size() * sizeof(uint32_t));
  result.Set("refused", refusedArray);
  return result;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("sha256Lines", Napi::Function::New(env, Sha256Lines, "sha256Lines"));
  exports.Set("merkleRoots", Napi::Function::New(env, MerkleRoots, "merkleRoots"));
  exports.Set("writeRows", Napi::Function::New(env, WriteRows, "writeRows"));
  exports.Set("nativeContents", Napi::Function::New(env, NativeContents, "nativeContents"));
  exports.Set("limitMallocArenas", Napi::Function::New(env, provd::LimitMallocArenas, "limitMallocArenas"));
  exports.Set("mallocArenas", Napi::Function::New(env, provd::MallocArenas, "mallocArenas"));
  exports.Set("peerCredentials", Napi::Function::New(env, provd::PeerCredentials, "peerCredentials"));
  return exports;
}

}  // namespace

NODE_API_MODULE(provd_hash, Init)
