// Package completion writes llmload's bash and zsh completion scripts from
// its commands and their flag sets (cmd reads those from the commands
// themselves, so the scripts cannot drift from them). It imports nothing
// of llmload; cmd imports it.
package completion
