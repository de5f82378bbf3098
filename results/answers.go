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
	texts := map[metrics.AnswerKey]string{}
	err := eachLine(stem+".outputs.jsonl", func(line []byte) error {
		var o OutputLine
		if err := json.Unmarshal(line, &o); err != nil {
			return err
		}
		k := metrics.AnswerKey{Index: o.DatasetIndex, Turn: o.Turn}
		if _, ok := texts[k]; !ok {
			texts[k] = o.Text
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	book := metrics.NewAnswerBook()
	err = eachLine(stem+".requests.jsonl", func(line []byte) error {
		var l struct {
			Warmup       bool              `json:"warmup"`
			DatasetIndex int               `json:"dataset_index"`
			Turn         int               `json:"turn"`
			Error        metrics.ErrorKind `json:"error"`
			Abandoned    bool              `json:"abandoned"`
			OutputEvents int               `json:"output_events"`
			OutputHash   string            `json:"output_hash"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return err
		}
		if l.Warmup || l.Error != "" || l.Abandoned || l.OutputEvents == 0 || l.OutputHash == "" || l.DatasetIndex < 0 {
			return nil
		}
		h, err := strconv.ParseUint(l.OutputHash, 16, 64)
		if err != nil {
			return fmt.Errorf("output_hash %q: %v", l.OutputHash, err)
		}
		k := metrics.AnswerKey{Index: l.DatasetIndex, Turn: l.Turn}
		text, ok := texts[k]
		book.Put(k, h, text, ok)
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
