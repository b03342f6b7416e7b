// The provd sensor addon: registers only (src/sensor/binding.ts loads it).
#include <napi.h>

#include "bpf-log.h"
#include "sensor.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  provd::captureLibbpfLog();
  exports.Set("Sensor", provd::Sensor::Define(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(provd_sensor, Init)
