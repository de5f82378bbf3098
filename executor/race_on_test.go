//go:build race

package executor

// raceEnabled is set when the tests run under the race detector, which
// slows the code too much for timing accuracy to mean anything.
const raceEnabled = true
