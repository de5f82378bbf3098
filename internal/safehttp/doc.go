// Package safehttp is the redirect policy of every HTTP client llmload
// builds (the load, the version, clock and tokenizer probes, metrics
// scraping, the shards' barrier): a server is hostile until proven
// otherwise, so no redirect is followed by default, and none ever leads
// a credential or a configured header to another host.
//
// It imports nothing of llmload's; executor, scrape and runner import it.
package safehttp
