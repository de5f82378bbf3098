// Package secret scrubs credentials from text: API keys, sensitive header
// values, sensitive variables' values and URL passwords. It is a leaf that
// every package that prints or stores what a server said may use.
//
// It is a leaf: it imports nothing of llmload. Every package that prints or
// stores what a server said may import it.
package secret
