// glibc gives threads their own malloc arenas, up to 8 per core, and memory freed in one arena
// serves only the threads on it. The daemon's threads (HTTP, normalize, store, DuckDB's, libuv's,
// V8's) filled about 20 arenas growing a store to 10M events: 270-285 MB resident in arenas, peak
// RSS 1.17-1.24 GB. Capped at two before any of them allocates (src/cli/main.ts), the peak was
// 1.04 GB, as with MALLOC_ARENA_MAX=2 in the environment, at the same CPU per event within the
// noise. glibc fixes its limit once a ninth arena is made, and a thread keeps the arena it first
// took, so the cap must come before the daemon starts its threads.
#include "malloc-arenas.h"

#if defined(__GLIBC__)
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include <string_view>
#endif

namespace provd {

Napi::Value LimitMallocArenas(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) {
    throw Napi::TypeError::New(env, "limitMallocArenas(max): max must be a number");
  }
  const int max = info[0].As<Napi::Number>().Int32Value();
  if (max < 1) throw Napi::RangeError::New(env, "limitMallocArenas(max): max must be at least 1");
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  return Napi::Boolean::New(env, mallopt(M_ARENA_MAX, max) == 1);
#else
  return Napi::Boolean::New(env, false);
#endif
}

Napi::Value MallocArenas(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
#if defined(__GLIBC__)
  // malloc_info writes one <heap nr="N"> element per arena, the main one included
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (out == nullptr) return env.Null();
  const bool written = malloc_info(0, out) == 0;
  fclose(out);
  int arenas = 0;
  if (written) {
    const std::string_view xml(text, size);
    for (size_t at = xml.find("<heap nr="); at != std::string_view::npos; at = xml.find("<heap nr=", at + 1)) {
      arenas++;
    }
  }
  free(text);
  if (!written) return env.Null();
  return Napi::Number::New(env, arenas);
#else
  return env.Null();
#endif
}

}  // namespace provd
