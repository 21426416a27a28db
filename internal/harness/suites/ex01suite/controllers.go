package ex01suite

import (
	"testing"

	"onehistory/internal/harness/kube"
)

func twoControllers(t *testing.T, mk func(int) kube.Storage) {}
