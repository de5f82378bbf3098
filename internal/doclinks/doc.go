// Package doclinks holds the test that keeps the documentation's links
// working: every link and image in README.md, docs/ and the other Markdown
// files of the repository must point at a file that exists, every #anchor
// at a heading of its file (GitHub's anchor rules), and every http(s) link
// must be well-formed (it is not fetched: tests have no network). It also
// keeps the README a front door: under 200 lines, linking to every docs/
// page.
//
// It imports nothing of llmload and nothing imports it: it reads the
// Markdown files from the repository's working tree.
package doclinks
