"""The benchmark harness (quality, latency, throughput). See README."""
