// Package k8s checks the Kubernetes example, in its external test package
// k8s_test: every manifest decodes strictly into its Kubernetes API type
// (an unknown or misspelt field fails), and the fields that make a sharded
// run work agree with each other and with llmload's flags. It is a package
// of its own so that the Kubernetes modules stay out of the llmload binary.
//
// It imports nothing of llmload; nothing imports it.
package k8s
