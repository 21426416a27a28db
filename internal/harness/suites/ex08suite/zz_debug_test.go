package ex08suite

import (
	"os"
	"strconv"
	"testing"

	sol "onehistory/solutions/ex08-more-copies-is-not-more-truth"
)

func TestZZDebug(t *testing.T) {
	seed, _ := strconv.ParseInt(os.Getenv("DSEED"), 10, 64)
	w := chaos(seed, sol.Serve)
	defer w.Close()
	for _, op := range w.History.Operations() {
		if op.Input.Key == os.Getenv("DKEY") {
			t.Log(op.String())
		}
	}
	t.Log(w.Describe())
}
