{
  "targets": [
    {
      "target_name": "provd_hash",
      "sources": ["hash.cc", "native-content.cc", "rows.cc", "malloc-arenas.cc", "peer-credentials.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra"],
      "cflags_cc!": ["-fno-exceptions"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"]
    }
  ]
}
