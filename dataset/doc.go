// Package dataset turns prompt sources (ShareGPT JSON, random prompts, JSONL)
// into plain requests for the executor. It knows no HCL and no HTTP.
//
// It imports tokenizer (and internal/secret). executor and runner
// import it; it never imports executor, sim or anything that
// sees HCL.
package dataset
