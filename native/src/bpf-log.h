// libbpf's messages: kept (the last few KiB) so a failed load or attach can say why, never printed.
#pragma once
#include <string>

namespace provd {

// Routes libbpf's output into the kept log; call once before any libbpf call.
void captureLibbpfLog();

// The warnings libbpf wrote since the last call, cleared.
std::string takeLibbpfLog();

}  // namespace provd
