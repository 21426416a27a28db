package ex12

import (
	"errors"

	"onehistory/internal/harness/kube"
)

// GuaranteedUpdate changes the object at key by mutate and writes it back. Every
// writer of the hidden suite changes objects through it: the autoscaler
// its replica count, an engineer its image.
//
// It returns the object as stored, or the error that ended it. Return
// kube.ErrTimeout (or the Timeout the client returned) when the change may
// or may not have been made; NotFound when there is no object; Conflict
// when it gave up because others kept writing first.
//
// TODO(ex12): this GuaranteedUpdate reads the object, changes it, and writes the whole
// object back unconditionally: whatever another writer changed since the
// read is overwritten with the old value. And when the write times out, it
// sends the same write again, which may make a change that was already made
// a second time. Write on condition that the object is still at the version
// read, and on Conflict read again and apply mutate to what you read. After
// a timeout, find out whether your change is there before you make it again,
// and say so when you cannot tell.
func GuaranteedUpdate(api *kube.Client, key string, mutate func(obj *kube.Object)) (kube.Object, error) {
	cur, err := api.Get(key, kube.ReadOptions{ResourceVersion: kube.Latest})
	if err != nil {
		return kube.Object{}, err
	}
	mutate(&cur)
	cur.ResourceVersion = 0 // write the whole object back
	for range 3 {
		var got kube.Object
		got, err = api.Update(cur)
		if !errors.Is(err, kube.ErrTimeout) {
			return got, err
		}
	}
	return kube.Object{}, err
}
