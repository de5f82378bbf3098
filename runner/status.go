package runner

// Status is how a run (or a merge) ended, declared in increasing severity:
// a run of several scenarios, or a run whose outputs failed, ends with the
// worst. cmd/llmload maps each to its exit code.
type Status int

const (
	StatusOK          Status = iota // every check passed on a valid run
	StatusFailed                    // a check failed
	StatusNoResult                  // no valid result: nothing completed, an invalid run, an inconclusive check
	StatusInvalid                   // invalid configuration or input: the run could not be what was asked
	StatusInterrupted               // interrupted (Ctrl-C); partial results were written
)
