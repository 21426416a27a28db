package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxBorrowed is the longest run of words a page may share with the source
// story: facts and figures carry over, sentences do not.
const maxBorrowed = 6

// The book retells the source story (../shared/seed/ beside the workbook
// where it is written, or the folder ONEHISTORY_SOURCE names; a clone of the
// workbook does not have it, and the test is skipped) in its own words: no page shares a run of more than maxBorrowed words with it.
// Quoted runs (captures, code blocks) and Mermaid diagrams are checked as
// well; only the words count, not case or punctuation.
func TestTheBookIsInItsOwnWords(t *testing.T) {
	wb, _ := realWorkbook(t)
	var seeds []string
	for _, dir := range []string{os.Getenv("ONEHISTORY_SOURCE"), filepath.Join(wb.Root, "..", "shared", "seed"), filepath.Join(wb.Root, "..", "..", "shared", "seed")} {
		if dir != "" && len(seeds) == 0 {
			seeds, _ = filepath.Glob(filepath.Join(dir, "*.txt"))
		}
	}
	if len(seeds) == 0 {
		t.Skip("the source story (../shared/seed/) is not beside this clone")
	}
	source := map[string]bool{}
	for _, file := range seeds {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range runs(words(string(data)), maxBorrowed+1) {
			source[run] = true
		}
	}
	pages, _ := filepath.Glob(filepath.Join(wb.Root, "book", "*.md"))
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, run := range runs(words(string(data)), maxBorrowed+1) {
			if source[run] && !seen[run] {
				seen[run] = true
				t.Errorf("%s shares %d words with the source: %q", filepath.Base(page), maxBorrowed+1, run)
			}
		}
	}
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}']+`)

// words are text's words, lower-cased, with apostrophes kept inside them.
func words(text string) []string {
	ws := wordRE.FindAllString(strings.ToLower(strings.ReplaceAll(text, "’", "'")), -1)
	for i, w := range ws {
		ws[i] = strings.Trim(w, "'")
	}
	return ws
}

// runs are the runs of n consecutive words, joined by spaces.
func runs(ws []string, n int) []string {
	var out []string
	for i := 0; i+n <= len(ws); i++ {
		out = append(out, strings.Join(ws[i:i+n], " "))
	}
	return out
}
