target "sim" {
base_url="sim://tiny"
   api = "openai"
}
