package sim

import "testing"

// wireList is a message like the lists the chapters send: a slice of
// records, each with a map of labels, and no pointer.
type wireList struct {
	Items []wireItem
}

type wireItem struct {
	Name   string
	Labels map[string]string
	Seq    int64
}

// wireNode is a message with pointers: a short linked list.
type wireNode struct {
	Value int
	Next  *wireNode
}

// BenchmarkCopyMessage is the copy the network makes of each message sent
// and delivered: a list of three records with labels, and a linked list of
// three nodes. Its allocs/op counts what one copy costs the collector.
func BenchmarkCopyMessage(b *testing.B) {
	list := wireList{Items: []wireItem{
		{Name: "web", Labels: map[string]string{"app": "web"}, Seq: 1},
		{Name: "db", Labels: map[string]string{"app": "db"}, Seq: 2},
		{Name: "cache", Labels: map[string]string{"app": "cache"}, Seq: 3},
	}}
	chain := &wireNode{1, &wireNode{2, &wireNode{3, nil}}}
	what := func() string { return "the benchmark's message" }
	b.Run("no-pointer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copyMessage(list, what)
		}
	})
	b.Run("pointers", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copyMessage(chain, what)
		}
	})
}
