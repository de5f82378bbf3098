package report

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmload/llmload/results"
)

// chromiumPath is where Debian's chromium package installs the browser
// (.ci/run installs it).
const chromiumPath = "/usr/bin/chromium"

// TestHTMLInChromium opens the report of each kind of run people share
// (a saturation run's stages, a sweep, a capacity search, a baseline and a
// candidate overlaid) in headless Chromium and checks that the screenshot
// is not blank. Without Chromium it skips, except in CI (CI=true), which
// must run it. What the plots hold is checked on their SVG
// (TestPlotLayout, TestWriteHTML); the pictures in docs/img come from real
// runs (tools/screenshots.sh).
func TestHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing in CI: .ci/run installs it (apt-get install -y chromium)", chromiumPath)
		}
		t.Skipf("%s is absent (apt-get install -y chromium to run this test)", chromiumPath)
	}
	for _, tt := range []struct {
		name string
		runs []Labelled
	}{
		{"saturation", []Labelled{{"saturation", result(t, closedLoopRun())}}},
		{"sweep", []Labelled{{"sweep", result(t, sweepRun(results.ModeSweep))}}},
		{"capacity", []Labelled{{"capacity", result(t, sweepRun(results.ModeCapacity))}}},
		{"overlay", []Labelled{{"baseline", result(t, openLoopRun())}, {"candidate", result(t, closedLoopRun())}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			shootPage(t, tt.runs)
		})
	}
}

func shootPage(t *testing.T, runs []Labelled) {
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(f, runs); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "out.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1200,3000", "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	pf, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	img, err := png.Decode(pf)
	if err != nil {
		t.Fatal(err)
	}
	colours, inked := inkOf(img)
	// A blank page is one colour; the report has text, tables, coloured
	// lines and a grid.
	if colours < 16 {
		t.Errorf("the screenshot has %d distinct colours: blank or nearly", colours)
	}
	if inked < 0.01 {
		t.Errorf("only %.2f%% of the screenshot is not white", 100*inked)
	}
	t.Logf("screenshot %v: %d colours, %.1f%% not white", img.Bounds().Size(), colours, 100*inked)
}

// inkOf counts an image's distinct colours and the share of its pixels
// that are not white.
func inkOf(img image.Image) (int, float64) {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				inked++
			}
		}
	}
	return len(seen), float64(inked) / float64(b.Dx()*b.Dy())
}
