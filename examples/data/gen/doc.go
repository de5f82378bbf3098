// Command gen writes examples/data/sharegpt_synthetic.json, the
// ShareGPT-format sample the examples use so that they run from a fresh
// clone with nothing beside it:
//
//	go run ./examples/data/gen > examples/data/sharegpt_synthetic.json
//
// The output is a pure function of the seed: running it again gives the
// same bytes (a test checks that the committed file is what it writes).
//
// Shape, as in ShareGPT (anon8231489123/ShareGPT_Vicuna_unfiltered): an
// array of {"id", "conversations": [{"from": "human"|"gpt", "value"}]};
// most conversations have one exchange, some two or three, and a few have
// only a human turn (which vLLM's sampling, and ours, drops). Lengths are
// log-normal, drawn in tokens of llmload's approximate tokenizer (within a
// few percent of Llama-3's counts on English): first prompts with median
// about 28 tokens and a long tail (mean about 90), replies with median
// about 165 (mean about 225), close to the ShareGPT-like sample the
// simulator was calibrated on (median 26 and mean 79 prompt tokens, median
// 159 and mean 224 reply tokens, in Llama-3 tokens). The words are Shakespeare's sonnets
// (vllm_sonnet.txt, public domain, as distributed by vLLM under Apache-2.0),
// so the text is English prose-like but says nothing: only the lengths and
// the structure are realistic.
//
// It imports tokenizer; nothing imports it.
package main
