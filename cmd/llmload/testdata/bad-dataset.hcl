# validate must load the dataset and find line 2, not only check the file exists.
target "t" {
  base_url = "sim://tiny"
}

dataset "d" {
  jsonl {
    path = "bad.jsonl"
  }
}
