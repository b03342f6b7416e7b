// Batch SHA-256 for the normalize pool: the content hashes of a whole slice of events, and the
// Merkle roots over them, in one call each. SHA-256 is OpenSSL's, as Node itself exports it (so
// the CPU's SHA extensions are used); the addon links nothing of its own.
// Loaded by src/provenance/batch-hash.ts, which holds the same functions in JavaScript.
#include <napi.h>
#include <openssl/sha.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

constexpr size_t kDigest = SHA256_DIGEST_LENGTH;

// OpenSSL 3's one-shot SHA256() looks the algorithm up on every call (~0.4 us); the low-level
// functions go straight to the block function (SHA extensions included). Deprecated, still exported.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
void Sha256(const uint8_t* data, size_t size, uint8_t* digest) {
  SHA256_CTX context;
  SHA256_Init(&context);
  SHA256_Update(&context, data, size);
  SHA256_Final(digest, &context);
}
#pragma GCC diagnostic pop

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

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("sha256Lines", Napi::Function::New(env, Sha256Lines, "sha256Lines"));
  exports.Set("merkleRoots", Napi::Function::New(env, MerkleRoots, "merkleRoots"));
  return exports;
}

}  // namespace

NODE_API_MODULE(provd_hash, Init)
