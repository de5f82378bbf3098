// Command figshot takes a screenshot of one figure of an llmload HTML
// report with headless Chromium, for the pictures in docs/ (made by
// tools/screenshots.sh from real runs on the built-in simulator).
//
//	go run ./tools/figshot -html REPORT.html -figure "Output throughput vs load" -o docs/img/x.png
//
// The figure is the report's inline <svg> whose aria-label is the title;
// it is shown alone on a white page of its own size. It imports nothing of
// llmload; nothing imports it.
package main
