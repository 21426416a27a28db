package ex11suite

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// vote is an answer to a request for a vote as the suite reads it off the
// trace: the learner's own message (the stub leaves its name and shape to
// the learner), read by its exported fields, never by how it prints: an
// integer field Term and a boolean field whose name says it grants
// (Granted, VoteGranted).
type vote struct {
	term    int64
	granted bool
}

// voteFields is where a message type keeps its Term and its grant, by
// type; nil: the type is no answer to a vote.
var voteFields sync.Map // reflect.Type → *[2]int

// readVote reads msg as an answer to a request for a vote.
func readVote(msg any) (vote, bool) {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return vote{}, false
	}
	f, ok := voteFields.Load(v.Type())
	if !ok {
		f = fieldsOfVote(v.Type())
		voteFields.Store(v.Type(), f)
	}
	at := f.(*[2]int)
	if at == nil {
		return vote{}, false
	}
	return vote{term: v.Field(at[0]).Int(), granted: v.Field(at[1]).Bool()}, true
}

// fieldsOfVote finds a vote's Term and grant in t, or nil.
func fieldsOfVote(t reflect.Type) *[2]int {
	term, grant := -1, -1
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case !f.IsExported():
		case f.Name == "Term" && isInt(f.Type.Kind()):
			term = i
		case f.Type.Kind() == reflect.Bool && strings.Contains(strings.ToLower(f.Name), "grant"):
			grant = i
		}
	}
	if term < 0 || grant < 0 {
		return nil
	}
	return &[2]int{term, grant}
}

// readAppendTerm reads msg as the given code's Append, a struct named
// Append with an integer field Term: only a leader of that term sends one.
func readAppendTerm(msg any) (int64, bool) {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0, false
	}
	f, ok := appendFields.Load(v.Type())
	if !ok {
		at := -1
		if t := v.Type(); t.Name() == "Append" {
			if field, ok := t.FieldByName("Term"); ok && field.IsExported() && len(field.Index) == 1 && isInt(field.Type.Kind()) {
				at = field.Index[0]
			}
		}
		f, _ = appendFields.LoadOrStore(v.Type(), at)
	}
	if at := f.(int); at >= 0 {
		return v.Field(at).Int(), true
	}
	return 0, false
}

// appendFields is where an Append keeps its Term, by type; -1: the type
// is no Append.
var appendFields sync.Map // reflect.Type → int

func isInt(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

// A ballot is one vote granted: by voter, in term, to candidate, at.
type ballot struct {
	voter, candidate sim.NodeID
	term             int64
	at               time.Duration
}

// ballots follows, after every step, every vote a server grants and every
// vote a candidate receives, off the trace. A vote counts as granted in
// term T when its sender says it is in T (it moved to T to vote) and its
// receiver says it stands, or leads, in T: a pre-vote, which moves nobody
// to a new term, is not one. It finds two faults the monitor of states
// only sees the consequences of, if at all: a server that grants its vote
// in one term to two candidates (after a restart that forgot the first,
// say), and a server that leads a term without the votes of a majority in
// that term (it counted a vote granted in an earlier one). It also hands
// every Append a server sends to the monitor (check.Consensus.Led): the
// sender acts as leader of the Append's term, whatever it says.
type ballots struct {
	w    *world
	read int
	// given is the first vote each server granted in each term.
	given map[sim.NodeID]map[int64]ballot
	// got is, by candidate and term, the votes of that term it received
	// while it stood in that term; stale is the last vote of another term
	// it received while it stood, for the story.
	got   map[sim.NodeID]map[int64][]ballot
	stale map[sim.NodeID]ballot
	// stood is the highest term each server was seen to stand in (say it
	// is a candidate), led the highest it was seen to lead.
	stood, led map[sim.NodeID]int64
	first      *suite.Failure
	// won is the first election seen (a server leading a term it stood
	// in), and voteRead whether any message between servers was a vote's
	// answer the ballots could read: an election with no readable vote
	// leaves them unable to decide (unread).
	won      *ballot
	voteRead bool
	// versions is each server's status version last read; kinds the kind
	// of each message type met.
	versions []uint64
	kinds    map[reflect.Type]msgKind
	// buf holds the events of the step being read.
	buf []sim.Event
	// asks is, by sender and receiver, whether each request with a Term
	// sent (as printed) asks for a pre-vote; pending the requests each
	// server received from each other and has not answered; answers
	// whether each answer sent (as printed) answers a pre-vote.
	asks, answers map[[2]sim.NodeID]map[any]bool
	pending       map[[2]sim.NodeID][]asked
}

// watchBallots hooks a ballots watcher into w.
func (w *world) watchBallots() *ballots {
	b := &ballots{w: w, given: map[sim.NodeID]map[int64]ballot{}, got: map[sim.NodeID]map[int64][]ballot{},
		stale: map[sim.NodeID]ballot{}, stood: map[sim.NodeID]int64{}, led: map[sim.NodeID]int64{},
		versions: make([]uint64, len(w.Servers)), kinds: map[reflect.Type]msgKind{},
		asks: map[[2]sim.NodeID]map[any]bool{}, answers: map[[2]sim.NodeID]map[any]bool{}, pending: map[[2]sim.NodeID][]asked{}}
	w.W.OnStep(b.step)
	return b
}

// msgKind is what a message is to the ballots: an Append, an answer to a
// vote, or neither.
type msgKind int

const (
	isOther msgKind = iota
	isAppend
	isVote
)

// kind is what msg is, found once per type.
func (b *ballots) kind(msg any) msgKind {
	t := reflect.TypeOf(msg)
	k, ok := b.kinds[t]
	if !ok {
		s := t
		for s.Kind() == reflect.Pointer {
			s = s.Elem()
		}
		if s.Kind() == reflect.Struct {
			if fieldsOfVote(s) != nil {
				k = isVote
			} else if f, ok := s.FieldByName("Term"); ok && s.Name() == "Append" && f.IsExported() && len(f.Index) == 1 && isInt(f.Type.Kind()) {
				k = isAppend
			}
		}
		b.kinds[t] = k
	}
	return k
}

// said is what server id last said of itself, if anything.
func (b *ballots) said(id sim.NodeID) (check.ServerState, bool) {
	v, _ := b.w.W.Status(id)
	return state(v)
}

func (b *ballots) step() {
	b.buf = b.w.W.Trace().AppendSince(b.buf[:0], b.read)
	events := b.buf
	b.read += len(events)
	if b.first != nil {
		return
	}
	for _, e := range events {
		if e.Kind > sim.EvRecvReply || e.Msg == nil {
			continue // not a message
		}
		switch b.kind(e.Msg) {
		case isOther:
			if b.w.IsServer(e.Node) && b.w.IsServer(e.Peer) && e.Node != e.Peer && hasTerm(e.Msg) {
				b.request(e)
			}
		case isAppend:
			if e.Kind == sim.EvSend && b.w.IsServer(e.Node) && b.w.IsServer(e.Peer) {
				if term, ok := readAppendTerm(e.Msg); ok {
					b.w.mon.Led(e.At, e.Node, term)
				}
			}
		case isVote:
			if e.Node == e.Peer || !b.w.IsServer(e.Node) || !b.w.IsServer(e.Peer) {
				continue
			}
			b.voteRead = true
			switch e.Kind {
			case sim.EvSend, sim.EvReply:
				b.sent(e)
			case sim.EvRecv, sim.EvRecvReply:
				b.received(e)
			}
		}
		if b.first != nil {
			return
		}
	}
	for i, id := range b.w.Servers {
		if _, version := b.w.W.Status(id); version == b.versions[i] {
			continue
		} else {
			b.versions[i] = version
		}
		st, ok := b.said(id)
		switch {
		case !ok:
		case st.Role == check.Candidate:
			b.stood[id] = max(b.stood[id], st.Term)
		case st.Role == check.Leader && st.Term > b.led[id]:
			b.led[id] = st.Term
			if b.stood[id] == st.Term {
				if b.won == nil {
					b.won = &ballot{candidate: id, term: st.Term, at: b.w.W.Now()}
				}
				b.elected(id, st.Term)
			}
			if b.first != nil {
				return
			}
		}
	}
}

// request notes a request with a Term one server sends another (e.Kind
// EvSend) or receives (EvRecv), and whether it asks for a pre-vote: its
// type's name or a true boolean field's name says "pre" (PreVote,
// RequestVote{Pre: true}), or its Term is beyond the term its sender said
// it was in when it sent it (a real request for a vote comes from a
// candidate that has moved to the term it asks for; a pre-vote asks about
// a term nobody has moved to). A receiver keeps the requests it has not
// answered yet (pending), for answersPreVote.
func (b *ballots) request(e sim.Event) {
	switch e.Kind {
	case sim.EvSend:
		pre := namesPre(e.Msg)
		if st, ok := b.said(e.Node); !pre && ok {
			pre = termOf(e.Msg) > st.Term
		}
		way := [2]sim.NodeID{e.Node, e.Peer}
		if len(b.asks[way]) >= maxKept {
			clear(b.asks[way]) // long delivered, or lost
		}
		if b.asks[way] == nil {
			b.asks[way] = map[any]bool{}
		}
		b.asks[way][msgKey(e.Msg)] = pre
	case sim.EvRecv:
		pre, ok := b.asks[[2]sim.NodeID{e.Peer, e.Node}][msgKey(e.Msg)]
		way := [2]sim.NodeID{e.Node, e.Peer}
		if len(b.pending[way]) >= maxKept {
			b.pending[way] = b.pending[way][1:]
		}
		b.pending[way] = append(b.pending[way], asked{term: termOf(e.Msg), pre: ok && pre || namesPre(e.Msg)})
	}
}

// asked is a request a server received and has not answered yet: its
// Term, and whether it asks for a pre-vote.
type asked struct {
	term int64
	pre  bool
}

// answersPreVote reports whether e, an answer with a Term and a grant from
// e.Node to e.Peer, answers a pre-vote. The answer to a real request for a
// vote in term T carries T, the term its sender moved to in order to vote;
// so an answer whose type's name does not say "pre" answers a real request
// if its sender has one of the same Term from that candidate unanswered,
// and otherwise a pre-vote if it has one of those unanswered (a pre-vote's
// answer carries its sender's own term, short of the term it asks about);
// an answer to no request the suite saw is read as a vote. Requests and answers are matched
// by these rules, not by their order: a server may answer a late pre-vote
// before the request for its vote that arrived first. The candidate reads
// the answer as its sender did.
func (b *ballots) answersPreVote(e sim.Event) bool {
	key := msgKey(e.Msg)
	switch e.Kind {
	case sim.EvSend, sim.EvReply:
		way := [2]sim.NodeID{e.Node, e.Peer}
		v, _ := readVote(e.Msg)
		pending := b.pending[way]
		pre := namesPre(e.Msg)
		at := slices.IndexFunc(pending, func(x asked) bool { return !x.pre && x.term == v.term })
		if pre || at < 0 {
			at = slices.IndexFunc(pending, func(x asked) bool { return x.pre })
			pre = pre || at >= 0
		}
		if at >= 0 {
			b.pending[way] = slices.Delete(pending, at, at+1)
		}
		if len(b.answers[way]) >= maxKept {
			clear(b.answers[way])
		}
		if b.answers[way] == nil {
			b.answers[way] = map[any]bool{}
		}
		b.answers[way][key] = pre
		return pre
	default:
		pre, ok := b.answers[[2]sim.NodeID{e.Peer, e.Node}][key]
		return ok && pre || namesPre(e.Msg)
	}
}

// namesPre reports whether msg's type's name says "Pre" (PreVote,
// PreVoteReply, preVote), or it has a true boolean field Pre, PreVote,
// IsPre or IsPreVote: a pre-vote, or its answer.
func namesPre(msg any) bool {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return false
	}
	sh := shapeOf(v.Type())
	if sh.namedPre {
		return true
	}
	for _, i := range sh.preFields {
		if v.Field(i).Bool() {
			return true
		}
	}
	return false
}

// shape is what the ballots read of a struct type, found once per type
// (shapes): every message between servers is asked for its Term and
// whether it says "pre", and reflect answers that by name, slowly.
type shape struct {
	term      []int // the index of its field Term (FieldByName's), if any
	hasTerm   bool  // the field Term is exported and an integer
	namedPre  bool  // the type's name says "Pre", or begins with "pre"
	preFields []int // its exported boolean fields named Pre, PreVote, IsPre or IsPreVote, in any case
	// plain: a value of the type is told from another by ==, exactly as
	// by how it prints (msgKey): its fields, all the way down, are
	// booleans, integers and strings, and nothing in it prints itself.
	plain bool
}

// shapes is each struct type's shape: facts about a type, the same for
// every world.
var shapes sync.Map // reflect.Type → *shape

func shapeOf(t reflect.Type) *shape {
	if sh, ok := shapes.Load(t); ok {
		return sh.(*shape)
	}
	sh := &shape{plain: plainType(t)}
	if f, ok := t.FieldByName("Term"); ok {
		sh.term, sh.hasTerm = f.Index, f.IsExported() && isInt(f.Type.Kind())
	}
	name := t.Name()
	sh.namedPre = strings.Contains(name, "Pre") || strings.HasPrefix(name, "pre")
	for i := range t.NumField() {
		f := t.Field(i)
		switch strings.ToLower(f.Name) {
		case "pre", "prevote", "ispre", "isprevote":
			if f.IsExported() && f.Type.Kind() == reflect.Bool {
				sh.preFields = append(sh.preFields, i)
			}
		}
	}
	v, _ := shapes.LoadOrStore(t, sh)
	return v.(*shape)
}

var (
	stringerType  = reflect.TypeFor[fmt.Stringer]()
	formatterType = reflect.TypeFor[fmt.Formatter]()
	errorType     = reflect.TypeFor[error]()
)

// plainType reports whether t's values print (%+v) as their booleans,
// integers and strings, field by field: no pointer, interface, float or
// container other than a struct or an array inside, and no method to print
// itself anywhere.
func plainType(t reflect.Type) bool {
	for _, m := range []reflect.Type{t, reflect.PointerTo(t)} {
		if m.Implements(stringerType) || m.Implements(formatterType) || m.Implements(errorType) {
			return false
		}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	case reflect.Array:
		return plainType(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainType(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// maxKept is how many messages of one way the ballots remember at most.
const maxKept = 64

// msgKey is msg as the ballots tell one message from another: how it
// prints, its type and its fields (a struct of a plain type is its own
// key: == tells its values apart as their print does, without printing).
func msgKey(msg any) any {
	if t := reflect.TypeOf(msg); t != nil && t.Kind() == reflect.Struct && shapeOf(t).plain {
		return msg
	}
	return fmt.Sprintf("%T%+v", msg, msg)
}

// termOf is msg's integer field Term (hasTerm says it has one).
func termOf(msg any) int64 {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		if at := shapeOf(v.Type()).term; at != nil {
			return v.FieldByIndex(at).Int()
		}
	}
	return v.FieldByName("Term").Int()
}

// sent notes a vote e grants, and finds a second one in a term.
func (b *ballots) sent(e sim.Event) {
	v, isVote := readVote(e.Msg)
	if !isVote || b.answersPreVote(e) || !v.granted {
		return
	}
	voter, ok := b.said(e.Node)
	stands, ok2 := b.said(e.Peer)
	if !ok || !ok2 || voter.Term != v.term || stands.Term != v.term || stands.Role == check.Follower {
		return
	}
	this := ballot{voter: e.Node, candidate: e.Peer, term: v.term, at: e.At}
	if logBehind(stands.Log, voter.Log) {
		b.votedBehind(this, stands.Log, voter.Log)
		return
	}
	if b.given[e.Node] == nil {
		b.given[e.Node] = map[int64]ballot{}
	}
	before, ok := b.given[e.Node][v.term]
	if !ok {
		b.given[e.Node][v.term] = this
		return
	}
	if before.candidate != this.candidate {
		b.votedTwice(before, this)
	}
}

// lastOf is the index and term of a log's last entry (0, 0 if empty).
func lastOf(log []check.LogEntry) (index, term int64) {
	if len(log) == 0 {
		return 0, 0
	}
	return int64(len(log)), log[len(log)-1].Term
}

// logBehind reports whether log a is less up to date than log b: its last
// entry is of an earlier term, or of the same term at a lower index (the
// Raft paper's §5.4.1).
func logBehind(a, b []check.LogEntry) bool {
	ai, at := lastOf(a)
	bi, bt := lastOf(b)
	return at < bt || at == bt && ai < bi
}

// votedBehind is the failure of a server that granted its vote to a
// candidate whose log is less up to date than its own, told with both
// logs' ends as the two servers said them when the vote was sent.
func (b *ballots) votedBehind(x ballot, candidate, own []check.LogEntry) {
	ci, ct := lastOf(candidate)
	vi, vt := lastOf(own)
	b.first = &suite.Failure{Name: "voted-for-a-log-behind", Clause: course.DurableAgreement, At: x.at,
		Story: fmt.Sprintf("at %s %s granted its vote in term %d to %s, whose log ends with %s, while its own ends with %s: "+
			"a server votes only for a candidate whose log is at least as up to date as its own (a later last term, or the same last term and at least as long), "+
			"in the real vote as in any pre-vote, or a leader can be elected without entries a majority has committed",
			suite.FormatTime(x.at), x.voter, x.term, x.candidate, entryAt(ci, ct), entryAt(vi, vt))}
}

// entryAt is "an entry of term 3 at index 5", or "nothing (it is empty)".
func entryAt(index, term int64) string {
	if index == 0 {
		return "nothing (it is empty)"
	}
	return fmt.Sprintf("an entry of term %d at index %d", term, index)
}

// received notes a vote of its term a candidate receives: any answer that
// grants the term the candidate stands in counts (a pre-vote that arrives
// late, too: the judge errs on the side of the candidate). A vote of an
// earlier term that arrives while it stands is kept for the story.
func (b *ballots) received(e sim.Event) {
	v, ok := readVote(e.Msg)
	if !ok || !v.granted || b.answersPreVote(e) {
		return
	}
	st, ok := b.said(e.Node)
	if !ok || st.Role == check.Follower {
		return
	}
	if v.term != st.Term {
		if given, ok := b.given[e.Peer][v.term]; ok && given.candidate == e.Node && v.term < st.Term {
			b.stale[e.Node] = given
		}
		return
	}
	if b.got[e.Node] == nil {
		b.got[e.Node] = map[int64][]ballot{}
	}
	if !slices.ContainsFunc(b.got[e.Node][v.term], func(x ballot) bool { return x.voter == e.Peer }) {
		b.got[e.Node][v.term] = append(b.got[e.Node][v.term], ballot{voter: e.Peer, candidate: e.Node, term: v.term, at: e.At})
	}
}

// voting judges the votes: the first vote granted twice in a term, or
// leader elected without a majority of its term's votes; or, when a server
// was elected and no vote could be read, that the votes went unread.
func voting(w *world) *suite.Failure {
	if b := w.ballots; b.first == nil && b.won != nil && !b.voteRead {
		return b.unread()
	}
	return w.ballots.first
}

// unread is the failure of a world whose servers held an election the
// ballots could not judge: no answer to a vote had the fields they read.
// Could not decide is a failure, never a pass.
func (b *ballots) unread() *suite.Failure {
	return &suite.Failure{Name: "votes-unread", Clause: course.OneHistory, At: b.won.at,
		Story: fmt.Sprintf("at %s %s became leader of term %d, which it had stood in, but no message between the servers was the answer to a vote with an integer Term and a boolean Granted (or VoteGranted): "+
			"the suite could not decide whether any server voted twice in a term or any leader lacked a majority, and could not decide is a failure; give the answer to a vote those two fields, as server.go's comment asks",
			suite.FormatTime(b.won.at), b.won.candidate, b.won.term)}
}

// elected judges a server just seen leading a term it was seen standing
// in: it received the votes of a majority granted in that term, its own
// included. It judges only worlds whose servers' votes it can read (some
// vote was granted).
func (b *ballots) elected(id sim.NodeID, term int64) {
	if len(b.given) == 0 {
		return
	}
	votes := []string{string(id)}
	for _, x := range b.got[id][term] {
		votes = append(votes, string(x.voter))
	}
	need := len(b.w.Servers)/2 + 1
	if len(votes) >= need {
		return
	}
	own := "its own"
	if len(votes) > 1 {
		own = strings.Join(votes, ", ") + ", its own included"
	}
	story := fmt.Sprintf("at %s %s became leader of term %d holding %d %s granted in term %d (%s), fewer than the %d a majority of %d servers needs",
		suite.FormatTime(b.w.W.Now()), id, term, len(votes), plural(len(votes), "vote"), term, own, need, len(b.w.Servers))
	if s, ok := b.stale[id]; ok {
		story += fmt.Sprintf("; the vote it received from %s was granted in term %d, at %s", s.voter, s.term, suite.FormatTime(s.at))
	}
	story += ": a vote counts only in the term it was granted in, and a leader without a majority of one term's votes can share that term with another leader"
	b.first = &suite.Failure{Name: "leader-without-majority", Clause: course.OneHistory, At: b.w.W.Now(), Story: story}
}

// votedTwice is the failure of a server that granted its vote in one term
// to two candidates, told with any crash in between and what it lost.
func (b *ballots) votedTwice(first, second ballot) {
	voter := first.voter
	story := fmt.Sprintf("at %s %s granted its vote in term %d to %s", suite.FormatTime(first.at), voter, first.term, first.candidate)
	clause := course.OneHistory
	for _, e := range b.w.W.Trace().Events() {
		if e.At < first.at || e.At > second.at || e.Node != voter || e.Kind != sim.EvCrash {
			continue
		}
		clause = course.DurableAgreement
		lost := 0
		for _, l := range b.w.W.DiskLosses(voter) {
			if l.At == e.At {
				lost += l.Unsynced - l.Kept
			}
		}
		story += fmt.Sprintf("; it crashed at %s", suite.FormatTime(e.At))
		if lost > 0 {
			story += fmt.Sprintf(", losing %dB it had written and not synced", lost)
		}
		story += ", and came back"
		break
	}
	story += fmt.Sprintf("; at %s it granted its vote in term %d again, to %s: a server votes at most once per term", suite.FormatTime(second.at), second.term, second.candidate)
	if clause == course.DurableAgreement {
		story += ", so a vote must reach its disk before it is sent, or a restart forgets it"
	}
	b.first = &suite.Failure{Name: "voted-twice-in-a-term", Clause: clause, At: second.at, Story: story}
}

// The split-vote scene's numbers.
const (
	splitFrom     = time.Second
	splitFor      = 2500 * time.Millisecond
	splitSlowMin  = 20 * time.Millisecond
	splitSlowMax  = 600 * time.Millisecond
	splitReboot   = 50 * time.Millisecond // how long the leader is down
	splitVoterOff = time.Millisecond      // how long the voter is down
)

// splitVote is three servers whose links all turn slow, 20–600ms each way,
// as the leader reboots: every server's election timer runs out, and
// several stand in the same term. The first server to answer a candidate
// and then write to its disk in the same step crashes right there, losing
// what it has not synced, and comes back at once: a vote sent before it is
// saved is forgotten, and the server can vote again in the same term when
// a second candidate's request arrives.
func splitVote(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 3)
	const end = 5 * time.Second
	w.writer("controller", end)
	w.W.At(splitFrom, func() {
		if l, _ := w.leaderNow(); l != "" {
			w.W.Crash(l)
			w.W.After(splitReboot, func() { w.W.Restart(l) })
		}
	})
	for i, a := range w.Servers {
		for _, b := range w.Servers[i+1:] {
			w.Inject(scene.SlowLink{A: a, B: b, Link: sim.Link{Min: splitSlowMin, Max: splitSlowMax}, From: splitFrom, For: splitFor})
		}
	}
	w.crashVoter(splitFrom)
	w.lastFault = splitFrom + splitFor
	return w.play(end, end+100*time.Millisecond)
}

// crashVoter crashes, once, the first server that sends a candidate a
// message and then, in the same step, writes to its disk, losing every
// byte not synced, and restarts it splitVoterOff later.
func (w *world) crashVoter(from time.Duration) {
	read := 0
	done := false
	w.W.OnStep(func() {
		events := w.W.Trace().Since(read)
		read += len(events)
		if done || w.W.Now() < from {
			return
		}
		answered := map[sim.NodeID]string{}
		for _, e := range events {
			switch {
			case (e.Kind == sim.EvSend || e.Kind == sim.EvReply) && w.IsServer(e.Node) && w.IsServer(e.Peer):
				v, _ := w.W.Status(e.Peer)
				if st, ok := state(v); ok && st.Role == check.Candidate {
					answered[e.Node] = e.Proc
				}
			case e.Kind == sim.EvDisk && e.Disk != nil && e.Disk.Op == sim.DiskAppend && answered[e.Node] != "" && answered[e.Node] == e.Proc && w.W.Up(e.Node):
				done = true
				id := e.Node
				w.crashedAt = fmt.Sprintf("%s crashed right after it answered a candidate and wrote to its disk, at %s, and came back at once", id, suite.FormatTime(w.W.Now()))
				w.W.CrashTearing(id, 1<<30)
				w.W.After(splitVoterOff, func() { w.W.Restart(id) })
				return
			}
		}
	})
}

// plural is "1 vote", "2 votes".
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// The slow-deposed scene's numbers: the leader is cut off alone for
// slowCut from slowFrom, and its disk takes slowSync to sync from then until
// slowFrom + slowFor.
const (
	slowFrom = time.Second
	slowCut  = 700 * time.Millisecond
	slowSync = 300 * time.Millisecond
	slowFor  = 2 * time.Second
)

// slowDeposed is three servers. At slowFrom the leader is cut off alone
// and its disk turns slow; the other two elect a leader of a later term;
// slowCut later the cut heals, while the old leader may still think it
// leads: the first message of the later term it hears deposes it, and it
// must stop acting as leader before it waits for its disk, not after.
func slowDeposed(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, 3)
	const end = 4 * time.Second
	w.writer("controller", end)
	w.W.At(slowFrom, func() {
		w.leader, w.leaderTerm = w.leaderNow()
		if w.leader == "" {
			return
		}
		w.W.Partition([]sim.NodeID{w.leader})
		w.W.SetDiskSyncLatency(w.leader, slowSync)
		id := w.leader
		w.W.After(slowFor, func() { w.W.SetDiskSyncLatency(id, 0) })
	})
	w.W.At(slowFrom+slowCut, func() { w.W.Heal() })
	w.lastFault = slowFrom + slowFor
	return w.play(end, end+100*time.Millisecond)
}
