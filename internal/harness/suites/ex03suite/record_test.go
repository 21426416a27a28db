package ex03suite

import (
	"encoding/json"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
)

// A server of the zoo that reads its log back at boot reads each record as
// json.Unmarshal would: the same value from a whole line, and an error from
// a torn or damaged one, whatever the line holds.
func TestRecordsReadBackAsJSONWouldReadThem(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := []string{"", "web", "deployments", "pods", "leases", "nodes", "node-3", "web:v2", `quo"te`, `back\slash`, "<&>", "ünï", "tab\there", "new\nline", "\u2028", "\xff"}
	word := func() string { return words[r.Intn(len(words))] }
	number := func() int64 {
		return []int64{0, 1, -1, 7, 12345, math.MaxInt64, math.MinInt64, int64(1500 * time.Millisecond)}[r.Intn(8)]
	}
	object := func() kube.Object {
		return kube.Object{Kind: word(), Name: word(), ResourceVersion: number(), Replicas: int(number()), Owner: word(), Image: word(), NodeName: word(),
			Status: kube.NodeStatus{Ready: kube.ConditionStatus(word()), Heartbeat: time.Duration(number()), NoSchedule: r.Intn(2) == 0},
			Lease:  kube.LeaseSpec{Holder: word(), LeaseDurationSeconds: int(number()), AcquireTime: time.Duration(number()), RenewTime: time.Duration(number()), Transitions: number()},
			Fence:  kube.Fence{LeaseKey: word(), Token: number()}}
	}
	same := func(line []byte, v, want any) {
		t.Helper()
		wantErr := json.Unmarshal(line, want)
		err := decodeRecord(line, v)
		require.Equal(t, wantErr != nil, err != nil, "%q", line)
		if err == nil {
			require.Equal(t, want, v, "%q", line)
		}
	}
	for range 300 {
		records := []any{
			kube.Event{Type: kube.EventType(word()), Object: object()},
			change{Object: object(), Deleted: r.Intn(2) == 0},
			copyRecord{Object: object(), Deleted: r.Intn(2) == 0, Own: r.Intn(2) == 0},
		}
		for _, rec := range records {
			line, err := json.Marshal(rec)
			require.NoError(t, err)
			line = append(line, '\n')
			variants := [][]byte{line, line[:r.Intn(len(line))], append([]byte(" "), line...)}
			damaged := append([]byte(nil), line...)
			const junk = "0-9e.\"\\{}:, x"
			damaged[r.Intn(len(damaged))] = junk[r.Intn(len(junk))]
			variants = append(variants, damaged)
			for _, l := range variants {
				switch rec.(type) {
				case kube.Event:
					same(l, new(kube.Event), new(kube.Event))
				case change:
					same(l, new(change), new(change))
				case copyRecord:
					same(l, new(copyRecord), new(copyRecord))
				}
			}
		}
	}
	var ev kube.Event
	line, _ := json.Marshal(kube.Event{Type: kube.Added, Object: kube.Object{Kind: "deployments", Name: "web", Replicas: 3, ResourceVersion: 2}})
	assert.NoError(t, decodeRecord(append(line, '\n'), &ev))
	assert.Equal(t, "deployments/web{replicas=3 rv=2}", ev.Object.String())
}
