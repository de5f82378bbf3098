package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/llmload/llmload/metrics"
)

// AnswersBeside reads the answers of the run whose result file is path
// from the files written beside it: each completed request's output hash
// from <scenario>.requests.jsonl, and the texts outputs { keep } wrote to
// <scenario>.outputs.jsonl when there is one. It returns nil and no error
// when there is no requests file (a result copied alone).
func AnswersBeside(path string) (*metrics.AnswerBook, error) {
	stem := strings.TrimSuffix(path, ".json")
	// The kept texts by request id: joined to the requests file's lines,
	// so that a text is the very answer whose hash is paired (not a
	// warmup's, a failed or abandoned one's under the same prompt).
	texts := map[int64]string{}
	err := eachLine(stem+".outputs.jsonl", func(line []byte) error {
		var o OutputLine
		if err := json.Unmarshal(line, &o); err != nil {
			return err
		}
		texts[o.ID] = o.Text
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	book := metrics.NewAnswerBook()
	err = eachLine(stem+".requests.jsonl", func(line []byte) error {
		var l struct {
			ID           int64             `json:"id"`
			Warmup       bool              `json:"warmup"`
			DatasetIndex int               `json:"dataset_index"`
			Arm          string            `json:"arm"`
			Turn         int               `json:"turn"`
			Error        metrics.ErrorKind `json:"error"`
			Abandoned    bool              `json:"abandoned"`
			OutputEvents int               `json:"output_events"`
			OutputHash   string            `json:"output_hash"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return err
		}
		// An A/B result's answers are its candidate arm's, as its figures.
		if l.Warmup || l.Error != "" || l.Abandoned || l.OutputEvents == 0 || l.OutputHash == "" || l.DatasetIndex < 0 || l.Arm == ArmBaseline {
			return nil
		}
		h, err := strconv.ParseUint(l.OutputHash, 16, 64)
		if err != nil {
			return fmt.Errorf("output_hash %q: %v", l.OutputHash, err)
		}
		text, ok := texts[l.ID]
		book.Put(metrics.AnswerKey{Index: l.DatasetIndex, Turn: l.Turn}, h, text, ok)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return book, err
}

// eachLine calls fn with each non-empty line of the file at path, naming
// the file and line in an error.
func eachLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
