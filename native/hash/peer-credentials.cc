// SO_PEERCRED gives the pid, uid and gid the peer had when it called connect() (socket(7)); the
// kernel fills them, so a peer cannot claim another's. The hook socket authenticates by them.
#include "peer-credentials.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace provd {

Napi::Value PeerCredentials(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber())
    throw Napi::TypeError::New(env, "failed to read peer credentials: expected a file descriptor");
  const int fd = info[0].As<Napi::Number>().Int32Value();
  struct ucred cred {};
  socklen_t size = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0 || size != sizeof(cred))
    throw Napi::Error::New(env, std::string("failed to read peer credentials: ") + strerror(errno));
  Napi::Object result = Napi::Object::New(env);
  result.Set("pid", Napi::Number::New(env, cred.pid));
  result.Set("uid", Napi::Number::New(env, cred.uid));
  result.Set("gid", Napi::Number::New(env, cred.gid));
  return result;
}

}  // namespace provd
