target "t" {
  base_url = "sim://tiny"
}

dataset "d" {
  random {}
}

scenario "s" {
  target  = target.t
  dataset = dataset.d

  open_loop {
    rate = 10
  }
  goodput {
    ttft = "1s"
  }
  sla {
    ttft_p99              = "500ms"
    itl_p99               = "30ms"
    error_rate            = 0.01
    min_output_throughput = 2500
    min_goodput           = 5
  }
  assert "throughput holds" {
    condition     = metrics.output_throughput >= 2500
    error_message = "Output throughput fell under 2,500 tok/s."
  }
  assert "tail" {
    condition = metrics.ttft.p99 <= 4 * metrics.ttft.p50
  }
  assert "itl" {
    condition = metrics["itl"].p99 < ms("50ms")
  }
}
