# write_profile HARDWARE COUNT FILE: an interchange file of COUNT events with distinct keys
# ("gemm m=1 n=8 k=8 bf16" ...), each 1 us, for HARDWARE. Sourced by the scripts here.
write_profile() {
  awk -v hardware="$1" -v count="$2" 'BEGIN {
    printf "{\"format\": \"distsim-profile\", \"version\": 1, \"hardware\": \"%s\", \"profiler\": \"p\",\n", hardware
    printf " \"library\": \"l\", \"measured_at\": \"2026-11-22T21:30:00Z\", \"device_seconds\": 1, \"events\": [\n"
    for (m = 1; m <= count; m++) {
      printf "  {\"key\": \"gemm m=%d n=8 k=8 bf16\", \"median_us\": 1, \"mean_us\": 1, \"min_us\": 1, ", m
      printf "\"max_us\": 1, \"stdev_us\": 0, \"samples\": 1}%s\n", (m < count ? "," : "")
    }
    printf "]}\n"
  }' >"$3"
}
