// Package secret scrubs credentials from text: API keys, sensitive header
// values, sensitive variables' values and URL passwords, each also in its
// JSON-, URL-, Go- and shell-escaped forms. It also escapes a server's
// text for terminals and logs (Printable): control characters, ANSI
// escapes and bidi overrides a hostile server could forge output with.
//
// It is a leaf: it imports nothing of llmload. Every package that prints or
// stores what a server said may import it.
package secret
