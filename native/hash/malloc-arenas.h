// Caps how many malloc arenas glibc gives the daemon's threads (see malloc-arenas.cc).
#pragma once

#include <napi.h>

namespace provd {

// limitMallocArenas(max: number): boolean. True when the cap was set.
Napi::Value LimitMallocArenas(const Napi::CallbackInfo& info);

// mallocArenas(): number | null. How many arenas glibc's malloc has made in this process (null off glibc).
Napi::Value MallocArenas(const Napi::CallbackInfo& info);

}  // namespace provd
