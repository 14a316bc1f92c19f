// Package prose extracts real English text for full-text search tests and
// benchmarks without a network: the paragraphs of the doc comments of the Go
// standard library sources under GOROOT/src, read in a fixed order so the
// same toolchain yields the same corpus.
package prose

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// GoRoot returns the toolchain's GOROOT.
func GoRoot() (string, error) {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if r := strings.TrimSpace(string(out)); r != "" {
			return r, nil
		}
	}
	if r := runtime.GOROOT(); r != "" {
		return r, nil
	}
	return "", errors.New("prose: GOROOT unknown")
}

// Paragraphs returns up to n paragraphs (of at least minWords words) of the
// standard library's comments, in path order then file order; fewer when the
// sources hold fewer.
func Paragraphs(n, minWords int) ([]string, error) {
	root, err := GoRoot()
	if err != nil {
		return nil, err
	}
	src := filepath.Join(root, "src")
	var files []string
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("prose: %w", err)
	}
	sort.Strings(files)
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		if len(out) >= n {
			break
		}
		paras, err := fileParagraphs(f)
		if err != nil {
			return nil, err
		}
		for _, p := range paras {
			if len(strings.Fields(p)) < minWords || seen[p] || !prose(p) {
				continue
			}
			seen[p] = true
			out = append(out, p)
			if len(out) >= n {
				break
			}
		}
	}
	return out, nil
}

// prose keeps paragraphs that read as sentences rather than code.
func prose(p string) bool {
	letters, other := 0, 0
	for _, r := range p {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == ' ':
			letters++
		default:
			other++
		}
	}
	return letters > 8*other && !strings.Contains(p, "Copyright")
}

func fileParagraphs(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("prose: %w", err)
	}
	defer f.Close()
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "//") {
			flush()
			continue
		}
		text := strings.TrimPrefix(line, "//")
		if strings.HasPrefix(text, "go:") || strings.HasPrefix(text, "\t") || strings.HasPrefix(text, "  ") {
			flush() // directives and indented code blocks
			continue
		}
		text = strings.TrimSpace(text)
		if text == "" {
			flush()
			continue
		}
		cur = append(cur, text)
	}
	flush()
	return out, sc.Err()
}
