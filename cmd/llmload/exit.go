package main

// Exit codes shared by every command (documented in docs/scenarios.md and
// the README).
const (
	exitOK          = 0   // success; every check passed
	exitCheckFailed = 1   // an SLA or assertion failed (or fmt -check found changes)
	exitInvalid     = 2   // invalid configuration, input or usage
	exitNoResult    = 3   // the run could not produce a valid result
	exitInterrupted = 130 // interrupted (Ctrl-C); partial results were written
)
