package ex02

import (
	"encoding/json"

	"onehistory/internal/harness/kube"
)

// encodeEvent turns one accepted change into the bytes of a log record's
// payload. It does not frame the record: where one record ends and the next
// begins is for the log to say.
func encodeEvent(ev kube.Event) []byte {
	b, err := json.Marshal(ev)
	if err != nil {
		panic(err) // an Event is plain data: this cannot happen
	}
	return b
}

// decodeEvent reads back a payload written by encodeEvent. It fails on bytes
// that are not one whole encoded event, such as the first part of one.
func decodeEvent(b []byte) (kube.Event, error) {
	var ev kube.Event
	err := json.Unmarshal(b, &ev)
	return ev, err
}
