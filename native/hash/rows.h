// The rows file of a slice (rows.cc). Must match src/telemetry/event-row.ts.
#ifndef PROVD_ROWS_H
#define PROVD_ROWS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace provd {

// Per event (index i), what its canonical content does not say.
struct RowColumns {
  const uint8_t* type;           // typeCode
  const uint8_t* source;         // sourceCode
  const int64_t* time_ns;
  const uint8_t* flags;          // risky 1, judged 2, unstorable pid 4
  const double* bytes;           // a safe integer
  const uint32_t* correlation;   // index into correlations
  const std::vector<std::string>* correlations;  // a row's correlation columns, with the newline
};

// Hashes each of `events` '\n'-terminated contents into `digests` (32 bytes each) and writes the
// rows file at `path` (mode 0600). Returns "" or why it failed ("failed to write the rows file: ...").
std::string WriteRows(const std::string& path, const uint8_t* contents, size_t size, const RowColumns& columns,
                      size_t events, std::vector<uint8_t>* digests);

}  // namespace provd

#endif
