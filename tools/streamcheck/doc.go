// Command streamcheck compares what llmload measured with what the fake
// server delivered (tools/fakeserver -record), request by request, for
// bench/streams.sh: TTFT and ITL percentiles on both sides and their
// differences, the first token's stamp lag, the connection phases, and
// the client's CPU per thousand events.
//
//	go run ./tools/streamcheck -requests R.requests.jsonl -server S.jsonl [-cpu SECONDS] [-rss KB] [-label NAME]
//
// It imports nothing of llmload; nothing imports it.
package main
