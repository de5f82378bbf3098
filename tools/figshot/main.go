package main

import (
	"context"
	"flag"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func main() {
	page := flag.String("html", "", "the HTML report")
	title := flag.String("figure", "", "the figure's title (its aria-label)")
	out := flag.String("o", "", "the PNG to write")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the browser")
	flag.Parse()
	if err := shoot(*page, *title, *out, *chromium); err != nil {
		fmt.Fprintln(os.Stderr, "figshot:", err)
		os.Exit(1)
	}
}

var (
	svgRe  = regexp.MustCompile(`(?s)<svg [^>]*>.*?</svg>`)
	sizeRe = regexp.MustCompile(`^<svg [^>]*?width="([\d.]+)pt" height="([\d.]+)pt"`)
)

func shoot(page, title, out, chromium string) error {
	if page == "" || title == "" || out == "" {
		return fmt.Errorf("-html, -figure and -o are required")
	}
	b, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	label := `aria-label="` + html.EscapeString(title) + `"`
	var svg string
	var titles []string
	for _, s := range svgRe.FindAllString(string(b), -1) {
		head := s[:strings.Index(s, ">")]
		if strings.Contains(head, label) {
			svg = s
			break
		}
		if m := regexp.MustCompile(`aria-label="([^"]*)"`).FindStringSubmatch(head); m != nil {
			titles = append(titles, m[1])
		}
	}
	if svg == "" {
		return fmt.Errorf("%s has no figure %q; it has %q", page, title, titles)
	}
	m := sizeRe.FindStringSubmatch(strings.Replace(svg, `role="img" `+label+` `, "", 1))
	if m == nil {
		return fmt.Errorf("figure %q: no width and height in points", title)
	}
	// CSS pixels are 3/4 of a point.
	px := func(s string) int { v, _ := strconv.ParseFloat(s, 64); return int(math.Ceil(v * 4 / 3)) }
	dir, err := os.MkdirTemp("", "figshot")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	doc := filepath.Join(dir, "figure.html")
	if err := os.WriteFile(doc, []byte(`<!doctype html><html><body style="margin:0;background:#fff">`+svg+`</body></html>`), 0o644); err != nil {
		return err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+abs,
		fmt.Sprintf("--window-size=%d,%d", px(m[1]), px(m[2])), "file://"+doc)
	if o, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("chromium: %v\n%s", err, o)
	}
	return nil
}
