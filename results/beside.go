package results

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// besideSuffixes are the files written beside a result, which a baseline
// copy takes along.
var besideSuffixes = []string{".requests.jsonl", ".outputs.jsonl"}

// SaveBeside copies the files written beside a result (run.requests.jsonl
// beside run.json) beside its baseline copy dst, under dst's stem. Files
// of an earlier baseline there that this run did not write are removed,
// so that stale answers never sit beside a fresh result; a file that is
// already the one in place (the save directory is the output directory)
// is left as it is.
func SaveBeside(files []string, dst string) error {
	stem := strings.TrimSuffix(dst, ".json")
	wrote := map[string]bool{}
	for _, src := range files {
		suffix := ""
		for _, s := range besideSuffixes {
			if strings.HasSuffix(src, s) {
				suffix = s
			}
		}
		if suffix == "" {
			continue
		}
		to := stem + suffix
		wrote[to] = true
		if err := copyFile(src, to); err != nil {
			return err
		}
	}
	for _, s := range besideSuffixes {
		if to := stem + s; !wrote[to] {
			if err := os.Remove(to); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// copyFile copies src to dst through a temporary file renamed into
// place; nothing when they are the same file.
func copyFile(src, dst string) error {
	si, err := os.Stat(src)
	if err != nil {
		return err
	}
	if di, err := os.Stat(dst); err == nil && os.SameFile(si, di) {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
