// The credentials of a Unix socket's peer, from the kernel (SO_PEERCRED): Node does not expose them.
#pragma once

#include <napi.h>

namespace provd {

// peerCredentials(fd: number): { pid: number; uid: number; gid: number }
// Mirrors src/agents/hook-socket/peer-credentials.ts. Throws "failed to read peer credentials: ..."
// when `fd` is not a connected Unix socket.
Napi::Value PeerCredentials(const Napi::CallbackInfo& info);

}  // namespace provd
