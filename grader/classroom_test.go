package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

// GitHub Classroom's dashboard shows the points its autograding workflow
// hands it: one test per chapter, worth the chapter's points, each graded
// by `grader exNN`, every one of them named among the reporter's runners.
// A chapter added to the course, or a chapter's points changed, without
// the workflow following, fails here. The dashboard is the core's alone: a
// bonus chapter is scored apart, so it has no autograding test.
func TestClassroomAutogradingGivesEachChapterItsPoints(t *testing.T) {
	wb, err := workbook.Find(".")
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(wb.Root, ".github", "workflows", "classroom.yml"))
	require.NoError(t, err)
	assert.Empty(t, classroomProblems(string(data), course.Core()))

	// And the check catches a workflow that fell behind.
	stale := strings.Replace(string(data), "max-score: 12", "max-score: 10", 1)
	assert.NotEmpty(t, classroomProblems(stale, course.Core()))
	missing := regexp.MustCompile(`(?s)\n      - name: ex02\n.*?max-score: \d+\n`).ReplaceAllString(string(data), "\n")
	assert.Contains(t, classroomProblems(missing, course.Core()), "ex02: no autograding test")
}

// classroomProblems lists how the workflow's tests differ from the course.
func classroomProblems(workflow string, chs []course.Chapter) []string {
	var out []string
	step := regexp.MustCompile(`(?s)- name: (ex\d+)\n\s+id: (ex\d+)\n\s+uses: classroom-resources/autograding-command-grader@v1\n\s+with:\n\s+test-name: (ex\d+)\n\s+command: ([^\n]+)\n\s+timeout: \d+\n\s+max-score: (\d+)\n`)
	tests := map[string][]string{}
	for _, m := range step.FindAllStringSubmatch(workflow, -1) {
		tests[m[1]] = m
	}
	runners := regexp.MustCompile(`runners: ([\w,]+)`).FindStringSubmatch(workflow)
	for _, ch := range chs {
		m, ok := tests[ch.ID]
		if !ok {
			out = append(out, ch.ID+": no autograding test")
			continue
		}
		if m[2] != ch.ID || m[3] != ch.ID || !strings.HasSuffix(m[4], "bin/grader --color never "+ch.ID) {
			out = append(out, fmt.Sprintf("%s: its test is named %s/%s and runs %q", ch.ID, m[2], m[3], m[4]))
		}
		if m[5] != fmt.Sprint(ch.Points()) {
			out = append(out, fmt.Sprintf("%s: max-score %s, but the chapter is worth %d points", ch.ID, m[5], ch.Points()))
		}
		if runners == nil || !strings.Contains(","+runners[1]+",", ","+ch.ID+",") {
			out = append(out, ch.ID+": not among the reporter's runners")
		}
		if !strings.Contains(workflow, fmt.Sprintf(`%s_RESULTS: "${{ steps.%s.outputs.result }}"`, strings.ToUpper(ch.ID), ch.ID)) {
			out = append(out, ch.ID+": the reporter is not given its result")
		}
	}
	if len(tests) != len(chs) {
		out = append(out, fmt.Sprintf("%d autograding tests for %d chapters", len(tests), len(chs)))
	}
	return out
}
