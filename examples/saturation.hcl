# Find the saturation knee: closed-loop users with no think time, stepped
# from 1 to 200. The per-stage table in the report shows output throughput
# flattening (about 3,100 tok/s at 100 users, barely more at 200 on the
# simulated A100) while P99 TTFT climbs to seconds and ITL passes 55 ms.
# The last stage with every SLA met is the most users this engine serves.
#
#   llmload run examples/saturation.hcl
#   llmload run examples/saturation.hcl -var base_url=http://127.0.0.1:8000 -var model=<served name>
#
# Takes about 4 minutes. It is meant to FAIL its SLAs (exit 1): the overall
# P99 includes the overloaded stages; read the stage table for the knee.

variable "base_url" {
  description = "Where the server listens: http(s)://host:port, or sim://<profile> for the built-in simulator."
  default     = "sim://a100-llama3-8b"
}

variable "model" {
  description = "The model name sent in every request (the simulator serves any name)."
  default     = "meta-llama/Meta-Llama-3-8B-Instruct"
}

target "server" {
  base_url   = var.base_url
  api        = "openai"
  model      = var.model
  ignore_eos = true # every reply as long as the dataset's, as in the reference
}

# The synthetic ShareGPT-format sample shipped in examples/data, counted by
# the server's /tokenize (the simulator and vLLM serve it).
dataset "sharegpt" {
  sharegpt {
    path        = "data/sharegpt_synthetic.json"
    num_prompts = 500
  }
  tokenizer = "server"
}

scenario "saturation" {
  target  = target.server
  dataset = dataset.sharegpt

  closed_loop {
    stage {
      users    = 1
      duration = "30s"
    }
    stage {
      users    = 10
      duration = "30s"
    }
    stage {
      users    = 50
      duration = "40s"
    }
    stage {
      users    = 100
      duration = "40s"
      ramp     = "5s"
    }
    stage {
      users    = 150
      duration = "40s"
      ramp     = "5s"
    }
    stage {
      users    = 200
      duration = "40s"
      ramp     = "5s"
    }
  }

  # Each stage is judged on its own samples: a P90 TTFT needs 100 requests
  # (stage 1, one user, sends about 20: inconclusive), ITL has thousands of
  # gaps.
  sla {
    ttft_p90 = "500ms"
    itl_p99  = "30ms"
  }
}
