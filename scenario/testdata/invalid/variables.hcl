variable "rate" {
  type    = number
  default = "ten" # ERROR: Invalid default value for variable
}

variable "users" {
  type    = number
  default = 0 # ERROR: Invalid value for variable
  validation {
    condition     = var.users >= 1
    error_message = "At least one user is needed."
  }
}

variable "required" { # ERROR: No value for required variable
  type = string
}

variable "bad type" { # ERROR: Invalid name
  type = strin
}

variable "other" {
  default = 1
  validation {
    condition     = var.other > var.rate # ERROR: Invalid reference in variable validation
    error_message = "Must exceed the rate."
  }
}

variable "derived" {
  default = var.rate * 2 # ERROR: Variables not allowed
}

variable "kind" {
  type    = strng # ERROR: Invalid type specification
  default = "a"
}

variable "other" { # ERROR: Duplicate variable
  default = 2
}

target "t" {
  base_url = "http://127.0.0.1:8000"
  model    = var.rat # ERROR: Reference to undeclared variable
  api_key  = env("LLMLOAD_TEST_UNSET_VARIABLE") # ERROR: Invalid function argument
}
