package sim

import (
	"testing"
	"unsafe"
)

// A chunk of the trace stays a small allocation, from the processor's own
// cache: an Event that grew would make every chunk a large one, allocated
// from the locked heap and cleared anew, in every world of every suite.
func TestATraceChunkIsASmallAllocation(t *testing.T) {
	if size := unsafe.Sizeof(Event{}) * traceChunk; size > 32<<10 {
		t.Fatalf("a chunk of %d events is %d bytes, over the runtime's 32 KB of a small allocation: lower traceChunk", traceChunk, size)
	}
}
