# A number variable, for the type error of -var rate=abc.
variable "rate" {
  type    = number
  default = 10
}

target "sim" {
  base_url = "sim://tiny"
  model    = "tiny"
}

dataset "random" {
  random {
    num_prompts = 4
  }
}

scenario "s" {
  target  = target.sim
  dataset = dataset.random
  open_loop {
    rate = var.rate
  }
}
