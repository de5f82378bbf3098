package doclinks

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/agext/levenshtein"
)

// root is the repository's root, from this package's folder.
const root = "../.."

// skipDirs are folders whose Markdown is not the repository's own: build
// output, results of local runs, and hidden folders (.git, a tool's cache).
var skipDirs = map[string]bool{"bin": true, "dist": true, "llmload-results": true, "node_modules": true}

// markdownFiles lists, relative to the root and slash-separated, README.md,
// every docs/ page and every other Markdown or README file in the tree.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || skipDirs[name]) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".md") || strings.HasPrefix(name, "README") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.md", "docs/ci.md"} {
		if !slices.Contains(files, want) {
			t.Fatalf("%s not found under %s: has the package moved? (found %v)", want, root, files)
		}
	}
	return files
}

// A link is one destination written in a Markdown file.
type link struct {
	line   int
	kind   string // "link", "image", "reference definition", "autolink", "html"
	target string
}

// A page is what the check needs of one Markdown file.
type page struct {
	links   []link
	anchors map[string]bool
	// problems the parser found itself: a reference without a definition,
	// text that looks like a link but is not one as GitHub reads it.
	problems []string
}

var (
	fenceRE   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	atxRE     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	closingRE = regexp.MustCompile(`(?:^|[ \t]+)#+[ \t]*$`)
	setextRE  = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	listRE    = regexp.MustCompile(`^ {0,3}([-*+>|]|\d+[.)])`)
	defRE     = regexp.MustCompile(`(?m)^ {0,3}\[((?:[^\]\\]|\\.)+)\]:[ \t]*(<[^>\n]*>|\S+)`)
	autoRE    = regexp.MustCompile(`<((?:https?|mailto):[^>\s]*)>`)
	htmlRE    = regexp.MustCompile(`(?i)<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*"([^"]*)"`)
	htmlIDRE  = regexp.MustCompile(`(?i)<[a-z][^>]*?\b(?:name|id)\s*=\s*"([^"]+)"`)
	lineRefRE = regexp.MustCompile(`^L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?$`)
	schemeRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// parse reads a Markdown file's links, reference definitions and anchors.
func parse(src string) page {
	p := page{anchors: map[string]bool{}}
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")

	// Fenced code blocks hold neither links nor headings: blank them,
	// keeping the line count so that line numbers stay true.
	text := make([]string, len(lines))
	var fence string
	for i, l := range lines {
		if fence != "" {
			if m := fenceRE.FindStringSubmatch(l); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(l[strings.Index(l, m[1])+len(m[1]):]) == "" {
				fence = ""
			}
			continue
		}
		if m := fenceRE.FindStringSubmatch(l); m != nil {
			fence = m[1]
			continue
		}
		text[i] = l
	}

	// Headings, and the anchors GitHub gives them.
	var s slugger
	for i, l := range text {
		if m := atxRE.FindStringSubmatch(l); m != nil {
			p.anchors[s.slug(headingText(closingRE.ReplaceAllString(m[2], "")))] = true
			continue
		}
		if i > 0 && setextRE.MatchString(l) && strings.TrimSpace(text[i-1]) != "" &&
			!atxRE.MatchString(text[i-1]) && !listRE.MatchString(text[i-1]) && !setextRE.MatchString(text[i-1]) &&
			(i < 2 || strings.TrimSpace(text[i-2]) == "") {
			p.anchors[s.slug(headingText(strings.TrimSpace(text[i-1])))] = true
		}
	}

	masked := maskCode(strings.Join(text, "\n"))
	for _, m := range htmlIDRE.FindAllStringSubmatch(masked, -1) {
		p.anchors[m[1]] = true
	}
	lineOf := func(off int) int { return strings.Count(masked[:off], "\n") + 1 }

	defs := map[string]bool{}
	for _, m := range defRE.FindAllStringSubmatchIndex(masked, -1) {
		defs[normLabel(masked[m[2]:m[3]])] = true
		p.links = append(p.links, link{lineOf(m[0]), "reference definition", strings.Trim(masked[m[4]:m[5]], "<>")})
	}
	for _, m := range autoRE.FindAllStringSubmatchIndex(masked, -1) {
		p.links = append(p.links, link{lineOf(m[0]), "autolink", masked[m[2]:m[3]]})
	}
	for _, m := range htmlRE.FindAllStringSubmatchIndex(masked, -1) {
		p.links = append(p.links, link{lineOf(m[0]), "html", masked[m[2]:m[3]]})
	}

	// Inline links and images: "](" closing a bracketed text.
	for off := 0; ; {
		i := strings.Index(masked[off:], "](")
		if i < 0 {
			break
		}
		close := off + i
		off = close + 2
		open := openBracket(masked, close)
		if open < 0 {
			continue
		}
		kind := "link"
		if open > 0 && masked[open-1] == '!' {
			kind = "image"
		}
		target, ok := destination(masked[close+2:])
		if !ok {
			p.problems = append(p.problems, fmt.Sprintf("line %d: %q is not a link as GitHub reads it (a space in the target? write it as <target>)",
				lineOf(close), firstLine(masked[open:])))
			continue
		}
		p.links = append(p.links, link{lineOf(close), kind, target})
	}

	// Full and collapsed reference links, [text][label] and [text][]: the
	// label must be defined in the file.
	for off := 0; ; {
		i := strings.Index(masked[off:], "][")
		if i < 0 {
			break
		}
		close := off + i
		off = close + 2
		open := openBracket(masked, close)
		end := strings.IndexAny(masked[close+2:], "]\n")
		if open < 0 || end < 0 || masked[close+2+end] != ']' {
			continue
		}
		label := masked[close+2 : close+2+end]
		if label == "" {
			label = masked[open+1 : close]
		}
		if !defs[normLabel(label)] {
			p.problems = append(p.problems, fmt.Sprintf("line %d: reference [%s] has no definition ([%s]: target)", lineOf(close), label, label))
		}
	}
	return p
}

// maskCode blanks inline code spans and HTML comments (backticks and
// content alike, newlines kept), so that what they hold is not read as
// links. A span closes at the next run of as many backticks, within its
// paragraph; a run without one is literal.
func maskCode(s string) string {
	b := []byte(s)
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	for i := 0; i < len(b); {
		if bytes.HasPrefix(b[i:], []byte("<!--")) {
			end := bytes.Index(b[i:], []byte("-->"))
			if end < 0 {
				end = len(b) - i - 3
			}
			blank(i, i+end+3)
			i += end + 3
			continue
		}
		if b[i] == '\\' {
			i += 2
			continue
		}
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		closeAt := -1
		for j := i + n; j < len(b); {
			if b[j] == '\n' && blankLineAt(b[j+1:]) {
				break // a blank line ends the paragraph
			}
			if b[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(b) && b[j+m] == '`' {
				m++
			}
			if m == n {
				closeAt = j + m
				break
			}
			j += m
		}
		if closeAt < 0 {
			i += n
			continue
		}
		blank(i, closeAt)
		i = closeAt
	}
	return string(b)
}

// blankLineAt reports whether b begins with a blank line.
func blankLineAt(b []byte) bool {
	for _, c := range b {
		switch c {
		case '\n':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// openBracket finds the '[' that the ']' at close closes, on brackets not
// escaped, or -1.
func openBracket(s string, close int) int {
	depth := 0
	for k := close - 1; k >= 0; k-- {
		if k > 0 && s[k-1] == '\\' {
			continue
		}
		switch s[k] {
		case ']':
			depth++
		case '[':
			if depth == 0 {
				return k
			}
			depth--
		case '\n':
			if k > 0 && s[k-1] == '\n' {
				return -1 // a blank line: another paragraph
			}
		}
	}
	return -1
}

// destination reads a link's destination (and optional title) after its
// "(", up to the closing ")"; ok is false when what follows is not one.
func destination(s string) (target string, ok bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	var dest strings.Builder
	if i < len(s) && s[i] == '<' {
		end := strings.IndexAny(s[i+1:], ">\n")
		if end < 0 || s[i+1+end] != '>' {
			return "", false
		}
		dest.WriteString(s[i+1 : i+1+end])
		i += end + 2
	} else {
		depth := 0
	loop:
		for ; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s) && strings.ContainsRune("()\\<> ", rune(s[i+1])):
				i++
				dest.WriteByte(s[i])
				continue
			case c == ' ' || c == '\t' || c == '\n':
				break loop
			case c == '(':
				depth++
			case c == ')':
				if depth == 0 {
					break loop
				}
				depth--
			}
			dest.WriteByte(c)
		}
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	if i < len(s) && strings.IndexByte(`"'(`, s[i]) >= 0 {
		closer := map[byte]byte{'"': '"', '\'': '\'', '(': ')'}[s[i]]
		end := strings.IndexByte(s[i+1:], closer)
		if end < 0 {
			return "", false
		}
		i += end + 2
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++
		}
	}
	if i >= len(s) || s[i] != ')' {
		return "", false
	}
	return dest.String(), true
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func normLabel(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

var (
	imageRE = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	linkRE  = regexp.MustCompile(`\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])`)
	tagRE   = regexp.MustCompile(`</?[A-Za-z][^>]*>`)
	emRE    = regexp.MustCompile(`(^|[^\p{L}\p{N}_])_{1,2}([^_]+?)_{1,2}([^\p{L}\p{N}_]|$)`)
)

// headingText is the text GitHub renders for a heading's Markdown: code
// spans keep their content verbatim; links and images become their text,
// HTML tags and underscore emphasis go (the other markup is punctuation,
// which the slug drops anyway).
func headingText(md string) string {
	var out strings.Builder
	for md != "" {
		i := strings.IndexByte(md, '`')
		if i < 0 {
			out.WriteString(inlineText(md))
			break
		}
		n := len(md[i:]) - len(strings.TrimLeft(md[i:], "`"))
		run := md[i : i+n]
		end := strings.Index(md[i+n:], run)
		for end >= 0 && i+n+end+n < len(md) && md[i+n+end+n] == '`' {
			next := strings.Index(md[i+n+end+n:], run)
			if next < 0 {
				end = -1
				break
			}
			end += n + next
		}
		if end < 0 {
			out.WriteString(inlineText(md))
			break
		}
		out.WriteString(inlineText(md[:i]))
		code := md[i+n : i+n+end]
		if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.TrimSpace(code) != "" {
			code = code[1 : len(code)-1]
		}
		out.WriteString(code)
		md = md[i+n+end+n:]
	}
	return strings.TrimSpace(out.String())
}

func inlineText(s string) string {
	// An escaped character is literal: hide it from the markup rules
	// below as a private-use rune, and restore it at the end.
	var esc strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] < 0x80 && (unicode.IsPunct(rune(s[i+1])) || unicode.IsSymbol(rune(s[i+1]))) {
			esc.WriteRune(0xE000 + rune(s[i+1]))
			i++
			continue
		}
		esc.WriteByte(s[i])
	}
	s = esc.String()
	s = imageRE.ReplaceAllString(s, "$1")
	s = linkRE.ReplaceAllString(s, "$1")
	s = tagRE.ReplaceAllString(s, "")
	for prev := ""; prev != s; {
		prev, s = s, emRE.ReplaceAllString(s, "$1$2$3")
	}
	return strings.Map(func(r rune) rune {
		if r >= 0xE000 && r < 0xE080 {
			return r - 0xE000
		}
		return r
	}, s)
}

// slug is GitHub's anchor for a heading's rendered text (github-slugger):
// lowercased, every character that is not a letter, a digit, a mark, '-',
// '_' or a space dropped, and each space turned into '-'.
func slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// A slugger gives one file's headings their anchors: a repeated slug gets
// -1, -2, ... as GitHub numbers them.
type slugger struct{ seen map[string]int }

func (s *slugger) slug(text string) string {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	base := slug(text)
	result := base
	for {
		if _, taken := s.seen[result]; !taken {
			break
		}
		s.seen[base]++
		result = fmt.Sprintf("%s-%d", base, s.seen[base])
	}
	s.seen[result] = 0
	return result
}

// checker resolves links from the files of one tree, reading each target
// page's anchors once.
type checker struct {
	root  string
	pages map[string]page
}

func (c *checker) page(rel string) (page, error) {
	if p, ok := c.pages[rel]; ok {
		return p, nil
	}
	b, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return page{}, err
	}
	p := parse(string(b))
	c.pages[rel] = p
	return p, nil
}

// check returns what is wrong with target as written in the file from
// (relative to the root), or "".
func (c *checker) check(from, target string) string {
	target = strings.TrimSpace(target)
	switch {
	case target == "":
		return "an empty target"
	case strings.ContainsAny(target, " \t\n"):
		return "a space in the target"
	case strings.HasPrefix(target, "//"):
		return "a scheme-relative URL: write https://"
	}
	if schemeRE.MatchString(target) {
		u, err := url.Parse(target)
		if err != nil {
			return "a malformed URL: " + err.Error()
		}
		switch strings.ToLower(u.Scheme) {
		case "http", "https":
			if u.Host == "" || u.Hostname() == "" || strings.Trim(u.Hostname(), ".") != u.Hostname() {
				return "a URL without a host"
			}
			if u.Port() == "" && strings.HasSuffix(u.Host, ":") {
				return "a URL with an empty port"
			}
			for _, r := range u.Hostname() {
				if !(r == '.' || r == '-' || r == '[' || r == ']' || r == ':' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
					return fmt.Sprintf("a host with %q in it", r)
				}
			}
			if !strings.Contains(u.Hostname(), ".") && u.Hostname() != "localhost" && !strings.Contains(u.Hostname(), ":") {
				return "a host without a domain"
			}
			return ""
		case "mailto":
			if !strings.Contains(u.Opaque, "@") {
				return "a mailto: without an address"
			}
			return ""
		default:
			return "an unexpected scheme " + u.Scheme + ":"
		}
	}

	file, frag, hasFrag := strings.Cut(target, "#")
	file, _, _ = strings.Cut(file, "?")
	file, err := url.PathUnescape(file)
	if err != nil {
		return "a malformed path: " + err.Error()
	}
	rel := from
	if file != "" {
		if strings.HasPrefix(file, "/") {
			rel = path.Clean(strings.TrimPrefix(file, "/"))
		} else {
			rel = path.Join(path.Dir(from), file)
		}
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "a path outside the repository"
		}
		info, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(rel)))
		if err != nil {
			return "no such file: " + rel
		}
		if info.IsDir() {
			if hasFrag {
				return "an anchor on a folder"
			}
			return ""
		}
	}
	if !hasFrag {
		return ""
	}
	frag, err = url.PathUnescape(frag)
	if err != nil {
		return "a malformed anchor: " + err.Error()
	}
	if !strings.HasSuffix(rel, ".md") && !strings.HasPrefix(path.Base(rel), "README") {
		if lineRefRE.MatchString(frag) {
			return ""
		}
		return "an anchor into a file that is not Markdown: " + rel
	}
	p, err := c.page(rel)
	if err != nil {
		return err.Error()
	}
	if !p.anchors[frag] {
		return fmt.Sprintf("no heading in %s has the anchor #%s (%s)", rel, frag, nearest(frag, p.anchors))
	}
	return ""
}

// nearest names the anchors closest to want, to help fix a link.
func nearest(want string, anchors map[string]bool) string {
	var names []string
	for a := range anchors {
		names = append(names, a)
	}
	slices.SortFunc(names, func(a, b string) int { return levenshtein.Distance(want, a, nil) - levenshtein.Distance(want, b, nil) })
	if len(names) > 3 {
		names = names[:3]
	}
	if len(names) == 0 {
		return "it has no headings"
	}
	return "nearest: #" + strings.Join(names, ", #")
}

// TestLinks: every link and image in the repository's Markdown resolves.
func TestLinks(t *testing.T) {
	c := &checker{root: root, pages: map[string]page{}}
	files := markdownFiles(t)
	checked := 0
	for _, f := range files {
		p, err := c.page(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range p.problems {
			t.Errorf("%s: %s", f, problem)
		}
		for _, l := range p.links {
			checked++
			if why := c.check(f, l.target); why != "" {
				t.Errorf("%s:%d: %s %q: %s", f, l.line, l.kind, l.target, why)
			}
		}
	}
	t.Logf("%d links in %d files", checked, len(files))
	if checked < 50 {
		t.Errorf("only %d links found in %d files: is the parser reading them?", checked, len(files))
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"The five lines", "the-five-lines"},
		{"Stored baseline, repeats, or A/B in one run", "stored-baseline-repeats-or-ab-in-one-run"},
		{"Server metrics: each engine's names", "server-metrics-each-engines-names"},
		{"`sharegpt { ... }`: a ShareGPT JSON file, sampled with vLLM's rules", "sharegpt----a-sharegpt-json-file-sampled-with-vllms-rules"},
		{"`llmload report RESULT.json... [-format F] [-html FILE] [-o FILE]`", "llmload-report-resultjson--format-f--html-file--o-file"},
		{"`open_loop { ... }`: requests arrive at a rate", "open_loop----requests-arrive-at-a-rate"},
		{"snake_case and kebab-case", "snake_case-and-kebab-case"},
		{"**Bold** and _emphasis_ and *stars*", "bold-and-emphasis-and-stars"},
		{"A [link](other.md#x) in a heading", "a-link-in-a-heading"},
		{"An ![image](img.png) too", "an-image-too"},
		{"100% done? Yes!", "100-done-yes"},
		{"C++ & Go", "c--go"},
		{"Ünïcödé Straße", "ünïcödé-straße"},
		{"Rocket 🚀 launch", "rocket--launch"},
		{"Many streams", "many-streams"},
		{"Trailing    spaces", "trailing----spaces"},
		{`Escaped \_underscore\_ and \*star\*`, "escaped-_underscore_-and-star"},
		{"<code>html</code> inside", "html-inside"},
		{"1.2.3 Version", "123-version"},
		{"What `-o` means", "what--o-means"},
	}
	for _, tt := range tests {
		t.Run(tt.heading, func(t *testing.T) {
			if got := slug(headingText(tt.heading)); got != tt.want {
				t.Errorf("slug(%q) = %q, want %q (text %q)", tt.heading, got, tt.want, headingText(tt.heading))
			}
		})
	}
}

func TestSlugDuplicates(t *testing.T) {
	tests := []struct {
		headings, want []string
	}{
		{[]string{"Faults", "Faults", "Faults"}, []string{"faults", "faults-1", "faults-2"}},
		{[]string{"A", "A-1", "A"}, []string{"a", "a-1", "a-2"}},
		{[]string{"A", "A", "A-1"}, []string{"a", "a-1", "a-1-1"}},
		{[]string{"Run", "run", "RUN!"}, []string{"run", "run-1", "run-2"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.headings, ","), func(t *testing.T) {
			var s slugger
			var got []string
			for _, h := range tt.headings {
				got = append(got, s.slug(h))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("anchors %v, want %v", got, tt.want)
			}
		})
	}
}

// TestParse: what the parser reads as links and anchors, and what it does
// not (code, fenced blocks).
func TestParse(t *testing.T) {
	src := "# Title\n\n" +
		"See [the guide](docs/ci.md#the-five-lines), ![a picture](img/x.png \"title\") and [a site](https://example.com/a_(b)).\n" +
		"A [wrapped\nlink text](wrapped.md) and <https://go.dev/doc>.\n" +
		"`[not a link](code.md)` and ``a `[nested](x.md)` span``.\n\n" +
		"```sh\n# not a heading\n[not](fenced.md)\n```\n\n" +
		"## Faults\n\n## Faults\n\nSetext heading\n--------------\n\n" +
		"[ref text][guide] and [guide][].\n\n[guide]: docs/guide.md\n" +
		"<a href=\"page.html\">x</a> <a name=\"custom\"></a>\n" +
		"[broken][nowhere] and [spaced](a b.md).\n"
	p := parse(src)
	var got []string
	for _, l := range p.links {
		got = append(got, fmt.Sprintf("%d %s %s", l.line, l.kind, l.target))
	}
	slices.Sort(got)
	want := []string{
		"22 reference definition docs/guide.md",
		"23 html page.html",
		"3 image img/x.png",
		"3 link docs/ci.md#the-five-lines",
		"3 link https://example.com/a_(b)",
		"5 autolink https://go.dev/doc",
		"5 link wrapped.md",
	}
	if !slices.Equal(got, want) {
		t.Errorf("links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, a := range []string{"title", "faults", "faults-1", "setext-heading", "custom"} {
		if !p.anchors[a] {
			t.Errorf("no anchor #%s; have %v", a, p.anchors)
		}
	}
	if p.anchors["not-a-heading"] {
		t.Error("a comment in a fenced block was read as a heading")
	}
	if len(p.problems) != 2 || !strings.Contains(p.problems[0]+p.problems[1], "[nowhere]") || !strings.Contains(p.problems[0]+p.problems[1], "a b.md") {
		t.Errorf("problems %q, want the undefined reference and the spaced target", p.problems)
	}
}

// TestCheck: how targets are judged, on a small tree of its own.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Top\n\n## Two commands\n")
	write("docs/a.md", "# Page A\n\n## Faults\n\n## Faults\n")
	write("docs/img/x.png", "png")
	write("go.mod", "module x\n")
	c := &checker{root: dir, pages: map[string]page{}}
	tests := []struct {
		from, target string
		ok           bool
	}{
		{"README.md", "docs/a.md", true},
		{"README.md", "docs/a.md#faults-1", true},
		{"README.md", "docs/a.md#faults-2", false},
		{"README.md", "#two-commands", true},
		{"README.md", "#Two-Commands", false},
		{"README.md", "#missing", false},
		{"README.md", "docs/", true},
		{"README.md", "docs#x", false},
		{"README.md", "docs/missing.md", false},
		{"README.md", "/docs/a.md#page-a", true},
		{"README.md", "../outside.md", false},
		{"docs/a.md", "../README.md#top", true},
		{"docs/a.md", "img/x.png", true},
		{"docs/a.md", "img/x.png#section", false},
		{"docs/a.md", "../go.mod#L1", true},
		{"docs/a.md", "#faults", true},
		{"docs/a.md", "a.md?plain=1#faults", true},
		{"README.md", "docs/a%2Emd", true},
		{"README.md", "https://github.com/gonum/plot", true},
		{"README.md", "http://127.0.0.1:8000/metrics", true},
		{"README.md", "http://localhost:9090", true},
		{"README.md", "https://", false},
		{"README.md", "https:///path", false},
		{"README.md", "https://exa mple.com", false},
		{"README.md", "https://example", false},
		{"README.md", "https://example.com:/x", false},
		{"README.md", "https://exa_mple.com/", false},
		{"README.md", "http://[::1]:8000/", true},
		{"README.md", "htps//example.com", false},
		{"README.md", "ftp://example.com/file", false},
		{"README.md", "//example.com", false},
		{"README.md", "mailto:someone@example.com", true},
		{"README.md", "mailto:", false},
		{"README.md", "", false},
	}
	for _, tt := range tests {
		why := c.check(tt.from, tt.target)
		if (why == "") != tt.ok {
			t.Errorf("check(%s, %q) = %q; want ok %v", tt.from, tt.target, why, tt.ok)
		}
	}
}

// TestReadmeFrontDoor: the README stays a front door (issue 34: under 200
// lines, the rest in docs/), and no docs/ page is lost behind it: the
// README links to every one of them.
func TestReadmeFrontDoor(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n >= 200 {
		t.Errorf("README.md has %d lines; keep it under 200 and move the details into docs/", n)
	}
	linked := map[string]bool{}
	for _, l := range parse(string(b)).links {
		file, _, _ := strings.Cut(l.target, "#")
		linked[path.Clean(file)] = true
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	for _, p := range pages {
		rel := "docs/" + filepath.Base(p)
		if !linked[rel] {
			t.Errorf("README.md does not link to %s: add it under \"Where to read on\"", rel)
		}
	}
}
