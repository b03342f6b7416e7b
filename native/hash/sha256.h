// SHA-256 as Node's own OpenSSL computes it (the addon links nothing of its own).
#ifndef PROVD_SHA256_H
#define PROVD_SHA256_H

#include <openssl/sha.h>

#include <cstddef>
#include <cstdint>

namespace provd {

constexpr size_t kSha256Bytes = SHA256_DIGEST_LENGTH;

// OpenSSL 3's one-shot SHA256() looks the algorithm up on every call (~0.4 us); the low-level
// functions go straight to the block function (SHA extensions included). Deprecated, still exported.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
inline void Sha256(const uint8_t* data, size_t size, uint8_t* digest) {
  SHA256_CTX context;
  SHA256_Init(&context);
  SHA256_Update(&context, data, size);
  SHA256_Final(digest, &context);
}
#pragma GCC diagnostic pop

}  // namespace provd

#endif
