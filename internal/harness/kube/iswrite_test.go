package kube_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"onehistory/internal/harness/kube"
)

// Creates, updates and deletes are writes; gets, lists and watches only
// read, and anything else is no request at all.
func TestIsWriteTellsTheThreeWritesFromReads(t *testing.T) {
	for _, req := range []any{kube.CreateRequest{}, kube.UpdateRequest{}, kube.DeleteRequest{}} {
		assert.True(t, kube.IsWrite(req), "%T", req)
	}
	for _, req := range []any{kube.GetRequest{}, kube.ListRequest{}, kube.WatchRequest{}, nil, "CREATE"} {
		assert.False(t, kube.IsWrite(req), "%T", req)
	}
}
