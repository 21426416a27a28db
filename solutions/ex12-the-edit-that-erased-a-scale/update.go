package ex12

import (
	"errors"

	"onehistory/internal/harness/kube"
)

// retries bounds how many times GuaranteedUpdate reads and writes again after a
// Conflict or a write whose outcome it could not learn.
const retries = 8

// GuaranteedUpdate changes the object at key by mutate and writes it back, the way
// client-go's retry.RetryOnConflict and the API server's GuaranteedUpdate
// do: read the object, apply mutate to what was read, and write it on
// condition that it is still at the version read. On Conflict someone wrote
// in between: read again and apply mutate again, to the new object, never
// the old one. A mutate that changes nothing is not written.
//
// A write that timed out may or may not have taken effect. It sends it
// again only while the object is still at the version it was conditional
// on (then at most one of the two can take effect). Once the object has
// moved, it reads whether its change is there (mutate then changes nothing)
// and reports success; when a read cannot tell, it returns kube.ErrTimeout:
// the change may have been made, and applying mutate again could make it
// twice.
//
// It returns the object as stored, or the error that ended it: NotFound,
// Conflict once the retries ran out, or Timeout (the outcome is unknown).
func GuaranteedUpdate(api *kube.Client, key string, mutate func(obj *kube.Object)) (kube.Object, error) {
	var unknown *kube.Object // the last write sent whose outcome is unknown
	var err error
	for range retries {
		var cur kube.Object
		cur, err = api.Get(key, kube.ReadOptions{ResourceVersion: kube.Latest})
		if err != nil {
			if errors.Is(err, kube.ErrNotFound) {
				return kube.Object{}, err
			}
			continue
		}
		want := cur
		mutate(&want)
		want.ResourceVersion = cur.ResourceVersion
		if sameContent(want, cur) {
			return cur, nil
		}
		if unknown != nil && unknown.ResourceVersion != cur.ResourceVersion {
			return kube.Object{}, kube.ErrTimeout
		}
		var got kube.Object
		got, err = api.Update(want)
		switch {
		case err == nil:
			return got, nil
		case errors.Is(err, kube.ErrConflict), errors.Is(err, kube.ErrNotFound):
			// Someone wrote in between (or it was our own write that
			// timed out): read again.
		case errors.Is(err, kube.ErrUnavailable):
			// The server was not reached: nothing was written.
		default:
			sent := want
			unknown = &sent
		}
	}
	if unknown != nil {
		return kube.Object{}, kube.ErrTimeout
	}
	return kube.Object{}, err
}
