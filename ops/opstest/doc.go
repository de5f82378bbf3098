// Package opstest holds the result fixture that the tests of ops and of
// the ops command share: a sweep of one vLLM replica with its scraped
// series. It imports metrics and results.
package opstest
