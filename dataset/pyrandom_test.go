package dataset

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPyRandom compares with vectors CPython 3.11 produced
// (testdata/pyrandom.json).
func TestPyRandom(t *testing.T) {
	raw, err := os.ReadFile("testdata/pyrandom.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Seed          json.Number `json:"seed"`
			Getrandbits32 []uint32    `json:"getrandbits32"`
			Shuffle20     []int       `json:"shuffle20"`
			Shuffle1000   []int       `json:"shuffle1000_head"`
			Choices7      []int       `json:"choices7"`
			Random        []string    `json:"random"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) == 0 {
		t.Fatal("no cases in testdata/pyrandom.json")
	}
	perm := func(seed int64, n int) []int {
		x := make([]int, n)
		for i := range x {
			x[i] = i
		}
		newPyRandom(seed).shuffle(n, func(i, j int) { x[i], x[j] = x[j], x[i] })
		return x
	}
	for _, c := range ref.Cases {
		seed, err := strconv.ParseInt(c.Seed.String(), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.Seed.String(), func(t *testing.T) {
			r := newPyRandom(seed)
			var bits []uint32
			for range c.Getrandbits32 {
				bits = append(bits, r.getrandbits(32))
			}
			if diff := cmp.Diff(c.Getrandbits32, bits); diff != "" {
				t.Errorf("getrandbits(32) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.Shuffle20, perm(seed, 20)); diff != "" {
				t.Errorf("shuffle(range(20)) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.Shuffle1000, perm(seed, 1000)[:len(c.Shuffle1000)]); diff != "" {
				t.Errorf("shuffle(range(1000))[:20] (-want +got):\n%s", diff)
			}
			r = newPyRandom(seed)
			var picks []int
			for range c.Choices7 {
				picks = append(picks, r.choice(7))
			}
			if diff := cmp.Diff(c.Choices7, picks); diff != "" {
				t.Errorf("choices(range(7)) (-want +got):\n%s", diff)
			}
			r = newPyRandom(seed)
			var want, got []float64
			for _, s := range c.Random {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, f)
				got = append(got, r.random())
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("random() (-want +got):\n%s", diff)
			}
		})
	}
}
