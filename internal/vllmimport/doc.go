// Package vllmimport translates a vLLM benchmark command line
// (benchmarks/benchmark_serving.py, or vllm bench serve) into an
// equivalent llmload scenario file.
//
// It is pure: arguments in, HCL text and the list of arguments it could
// not translate out. Nothing is read or sent; the scenario names the
// dataset files the command named, which need not exist yet.
//
// It imports scenario (to check what it writes) and internal/apis (the
// APIs' names and endpoints). cmd/llmload imports it
// (`llmload import vllm`).
package vllmimport
