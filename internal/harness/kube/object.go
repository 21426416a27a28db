package kube

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"onehistory/internal/harness/sim"
)

// Object is a stored API object, reduced to what the story needs: a
// Deployment with a desired replica count and an image, or a Pod owned by
// one.
type Object struct {
	Kind string // "deployments", "pods"
	Name string // "web", "web-x7k2"
	// ResourceVersion is the position, in the one history of accepted
	// changes, of the change that last wrote this object. Zero means "not
	// stored yet" on a Create; on an Update or Delete a non-zero value is a
	// precondition: the write fails with Conflict unless the stored object's
	// ResourceVersion is still this one.
	ResourceVersion int64
	Replicas        int    // deployments: how many pods are desired
	Owner           string // pods: the key of the owning deployment, "deployments/web"
	// Image is, for a deployment, the container image its pods run
	// ("web:v2"): a second field beside Replicas, so that two writers can
	// change different fields of one object. Empty when no story sets it.
	Image string
	// NodeName is, for a pod, the node it is bound to ("node-3"): the node
	// whose kubelet runs it. Empty: not bound (see node.go).
	NodeName string
	// Status is, for a node ("nodes/node-3"), what its kubelet and the node
	// controller say of it: its Ready condition and last heartbeat.
	Status NodeStatus
	// Lease is, for an object of kind "leases", the lease's record: who
	// holds it, for how long, and since when by the holder's clock.
	Lease LeaseSpec
	// Fence, on a write (Create or Update), is a condition: the store
	// refuses the write with ErrFenced unless the lease at Fence.LeaseKey
	// still carries Fence.Token. It is never stored. The zero Fence
	// writes unfenced.
	Fence Fence
}

// LeaseSpec is a lease's record, as coordination.k8s.io/v1 Lease keeps it:
// who holds it, for how many seconds from its last renewal, and the times it
// was acquired and last renewed, each read from the writer's own clock
// (p.Clock()): another node's clock may disagree with them by any amount.
// Transitions counts the changes of holder: the first holder makes it 1,
// every other who takes it over adds one, and a holder renewing leaves it as
// it is. Since every holder's term has its own count, it is the token a
// holder's writes carry (Fence).
type LeaseSpec struct {
	Holder               string // "controller-a"; empty: released
	LeaseDurationSeconds int
	AcquireTime          time.Duration // the writer's Clock when its holder took it
	RenewTime            time.Duration // the writer's Clock at its last renewal
	Transitions          int64
}

// String is "holder=controller-a duration=15s acquired=1000ms renewed=3000ms transitions=1".
func (l LeaseSpec) String() string {
	return fmt.Sprintf("holder=%s duration=%ds acquired=%s renewed=%s transitions=%d",
		l.Holder, l.LeaseDurationSeconds, sim.FormatTime(l.AcquireTime), sim.FormatTime(l.RenewTime), l.Transitions)
}

// Fence is what a write carries to be fenced by a lease: the lease's key and
// the token (the lease's Transitions) its writer held it with. A store that
// fences (MemStore does) accepts the write only while the lease is at that
// token, deciding in the one order of its history: a writer whose lease has
// passed to another since it decided is refused, however late its write
// arrives. The zero Fence fences nothing.
type Fence struct {
	LeaseKey string // "leases/controller"
	Token    int64
}

// String is "leases/controller#2".
func (f Fence) String() string { return fmt.Sprintf("%s#%d", f.LeaseKey, f.Token) }

// Key is "kind/name": "deployments/web".
func (o Object) Key() string { return o.Kind + "/" + o.Name }

// String is a short form for traces and stories: "deployments/web{replicas=5 rv=12}".
func (o Object) String() string {
	// Built in one buffer: every client's note and many a trace line print
	// an object.
	b := make([]byte, 0, 64)
	b = append(append(append(append(b, o.Kind...), '/'), o.Name...), '{')
	return string(append(o.appendBody(b), '}'))
}

// appendBody appends what String says between the braces: the fields,
// then "rv=12".
func (o Object) appendBody(b []byte) []byte {
	return strconv.AppendInt(append(o.appendFields(b), "rv="...), o.ResourceVersion, 10)
}

// appendFields appends the fields String prints before the
// resourceVersion, each followed by a space: "replicas=5 ".
func (o Object) appendFields(b []byte) []byte {
	if o.Kind == "deployments" || o.Replicas != 0 {
		b = strconv.AppendInt(append(b, "replicas="...), int64(o.Replicas), 10)
		b = append(b, ' ')
	}
	if o.Image != "" {
		b = append(append(append(b, "image="...), o.Image...), ' ')
	}
	if o.Owner != "" {
		b = append(append(append(b, "owner="...), o.Owner...), ' ')
	}
	if o.NodeName != "" {
		b = append(append(append(b, "node="...), o.NodeName...), ' ')
	}
	if o.Kind == "nodes" || o.Status != (NodeStatus{}) {
		b = append(append(b, o.Status.String()...), ' ')
	}
	if o.Kind == "leases" {
		b = append(append(b, o.Lease.String()...), ' ')
	}
	if o.Fence != (Fence{}) {
		b = append(append(append(b, "fence="...), o.Fence.String()...), ' ')
	}
	return b
}

// SplitKey splits "deployments/web" into its kind and name.
func SplitKey(key string) (kind, name string) {
	kind, name, _ = strings.Cut(key, "/")
	return kind, name
}

// EventType says what a watch event reports.
type EventType string

// The watch event types, as Kubernetes names them.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// Event is one accepted change, as a watch delivers it. Object is the object
// after the change (for Deleted: as it was, with the ResourceVersion of the
// deletion).
type Event struct {
	Type   EventType
	Object Object
}

// String is "MODIFIED deployments/web{replicas=5 rv=12}".
func (e Event) String() string { return string(e.Type) + " " + e.Object.String() }

// The two read semantics of kube-apiserver, for ReadOptions.ResourceVersion.
const (
	// Latest ("") asks for the most recent state, consistent with every
	// write acknowledged before the read began.
	Latest = ""
	// Any ("0") accepts whatever version the server has at hand, possibly
	// stale: the cheap read an informer's first list uses.
	Any = "0"
)

// ReadOptions choose how fresh a read must be.
type ReadOptions struct {
	ResourceVersion string // Latest or Any
}

// List is the answer to a list: the items, and the ResourceVersion of the
// history position the list reflects (watch from there to miss nothing).
type List struct {
	Items           []Object
	ResourceVersion int64
}

// The messages an API server understands, sent with sim's Call. Each reply
// is the value named beside the request, or an error.
type (
	// GetRequest asks for one object; the reply is an Object.
	GetRequest struct {
		Key  string
		Opts ReadOptions
	}
	// ListRequest asks for every object of a kind; the reply is a List.
	ListRequest struct {
		Kind string
		Opts ReadOptions
	}
	// CreateRequest stores a new object; the reply is the stored Object.
	CreateRequest struct{ Object Object }
	// UpdateRequest replaces an object, conditionally on a non-zero
	// Object.ResourceVersion; the reply is the stored Object.
	UpdateRequest struct{ Object Object }
	// DeleteRequest removes an object, conditionally on a non-zero
	// ResourceVersion; the reply is the deleted Object.
	DeleteRequest struct {
		Key             string
		ResourceVersion int64
	}
	// WatchRequest asks for the changes to a kind after ResourceVersion
	// (exclusive), waiting up to Wait for at least one; the reply is a
	// []Event (empty if none came in time). A ResourceVersion older than
	// what the server retains is answered with Gone: relist.
	WatchRequest struct {
		Kind            string
		ResourceVersion int64
		Wait            time.Duration
	}
)

// IsWrite reports whether req is a write request: a CreateRequest, an
// UpdateRequest or a DeleteRequest. Every other request only reads.
func IsWrite(req any) bool {
	switch req.(type) {
	case CreateRequest, UpdateRequest, DeleteRequest:
		return true
	}
	return false
}

// Storage is what an API server serves requests from: the one interface a
// chapter's store implements, whether it is one map in memory or a history
// replicated over several nodes. Every method runs inside the process that
// handles the request, so it may block (call peers, sync a disk).
type Storage interface {
	Get(p *sim.Proc, key string, opts ReadOptions) (Object, error)
	List(p *sim.Proc, kind string, opts ReadOptions) (List, error)
	Create(p *sim.Proc, obj Object) (Object, error)
	Update(p *sim.Proc, obj Object) (Object, error)
	Delete(p *sim.Proc, key string, resourceVersion int64) (Object, error)
	Watch(p *sim.Proc, kind string, resourceVersion int64, wait time.Duration) ([]Event, error)
}

// Value is what a history records for the object, for the checkers (check.Change
// values and the client's recorded operations): the desired Replicas of a
// deployment, the Owner of any other object that has one (a pod), a lease's
// record as LeaseSpec.String prints it, a node's status ("ready=True
// heartbeat=10000ms"), else Replicas. An object with an Image records both
// fields, as "replicas=7 image=web:v2", so that a write that erased either
// one is a different value.
func (o Object) Value() any {
	if o.Kind == "nodes" {
		return o.Status.String()
	}
	if o.Kind == "leases" {
		return o.Lease.String()
	}
	if o.Kind != "deployments" && o.Owner != "" {
		return o.Owner
	}
	if o.Image != "" {
		return fmt.Sprintf("replicas=%d image=%s", o.Replicas, o.Image)
	}
	return o.Replicas
}

// The wire messages print as the requests a person would type, so that a
// timeline lane reads "→ server-2 GET deployments/web" rather than a struct.

// String is "GET deployments/web" (with "rv=0" for a read from the cache).
func (r GetRequest) String() string { return "GET " + r.Key + readSuffix(r.Opts) }

// String is "LIST pods" (with "rv=0" for a read from the cache).
func (r ListRequest) String() string { return "LIST " + r.Kind + readSuffix(r.Opts) }

// String is "CREATE pods/web-1".
func (r CreateRequest) String() string { return "CREATE " + r.Object.String() }

// String is "UPDATE deployments/web{replicas=5 rv=4}": the rv is the precondition.
func (r UpdateRequest) String() string { return "UPDATE " + r.Object.String() }

// String is "DELETE pods/web-1" (with "if rv=N" for a precondition).
func (r DeleteRequest) String() string {
	if r.ResourceVersion != 0 {
		return fmt.Sprintf("DELETE %s if rv=%d", r.Key, r.ResourceVersion)
	}
	return "DELETE " + r.Key
}

// String is "WATCH pods after rv=6".
func (r WatchRequest) String() string {
	kind := r.Kind
	if kind == "" {
		kind = "everything"
	}
	return fmt.Sprintf("WATCH %s after rv=%d", kind, r.ResourceVersion)
}

// String is "3 items @rv=7: pods/web-1 pods/web-2 pods/web-3" (names
// elided past a few).
func (l List) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d items @rv=%d", len(l.Items), l.ResourceVersion)
	for i, o := range l.Items {
		if i == 3 {
			b.WriteString(" …")
			break
		}
		b.WriteString(" " + o.Key())
	}
	return b.String()
}

func readSuffix(o ReadOptions) string {
	if o.ResourceVersion == Any {
		return " (rv=0, cache)"
	}
	return ""
}
