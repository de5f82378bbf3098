target "sim" {
  base_url = "sim://tiny"
  api      = "openai"
  modle    = "tiny"
}

scenario "broken" {
  target  = target.nope
  dataset = dataset.random
  open_loop {
    rate = -1
  }
}
