target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = "m" "extra" # ERROR: Missing newline after argument
}
