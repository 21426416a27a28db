// Package render shows a grading result. Each output format is one renderer
// over the same result.Report, and none of them computes anything a
// renderer beside it would need:
//
//	render.Summary(w, rep, pal)       // the progress report: chapters, clauses, score
//	render.Verbose(w, ch, pal)        // one chapter told in full: story, timeline, replay
//	render.JSON(w, rep)               // the versioned machine report (schema onehistory.grader/v1)
//	render.JUnit(w, rep)              // JUnit XML for CI dashboards
//
// A Palette decides color once (github.com/fatih/color); a Progress line
// shows which chapters are still running while a terminal waits.
package render
