{
  "targets": [
    {
      "target_name": "provd_sensor",
      "sources": [
        "src/addon.cc",
        "src/bpf-log.cc",
        "src/exec-history.cc",
        "src/mark-maps.cc",
        "src/program-loader.cc",
        "src/record-folder.cc",
        "src/ring-reader.cc",
        "src/sensor.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "../bpf/build",
        "../bpf/lib"
      ],
      "libraries": ["<!@(pkg-config --libs libbpf)"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-Wno-missing-field-initializers"],
      "cflags_cc!": ["-fno-exceptions"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"]
    }
  ]
}
