package jsruntime

import (
	"encoding/json"
	"fmt"
)

// storedValues maps keys to the JSON text of their values.
type storedValues map[string]string

// storeLimits bound a session's stored values: how many, and their total size (keys plus JSON).
type storeLimits struct {
	maxValues int
	maxBytes  int
}

// Error texts of store() past a limit (thrown in JavaScript as plain strings) and of a completed
// cell whose writes no longer fit the session's store.
const (
	storeCountText  = "store exceeded the value count limit of %d"
	storeSizeText   = "store exceeded the total size limit of %d bytes"
	storeCommitText = "stored values were not committed: the session's store would exceed its limit of %d values and %d bytes"
)

// size is what an entry counts against the size limit.
func entrySize(key, value string) int { return len(key) + len(value) }

// totalSize sums the entry sizes of vs.
func (vs storedValues) totalSize() int {
	n := 0
	for k, v := range vs {
		n += entrySize(k, v)
	}
	return n
}

// cellStore is what one cell sees: the session's values when it started plus its own writes. The
// writes reach the session when the cell completes (never when it is terminated).
type cellStore struct {
	view   storedValues
	writes storedValues
	bytes  int
	limits storeLimits
}

func newCellStore(snapshot storedValues, l storeLimits) *cellStore {
	return &cellStore{view: snapshot, writes: storedValues{}, bytes: snapshot.totalSize(), limits: l}
}

// put stores value under key, or returns the error text when a limit would be exceeded.
func (s *cellStore) put(key string, value json.RawMessage) string {
	old, exists := s.view[key]
	bytes := s.bytes + entrySize(key, string(value))
	if exists {
		bytes -= entrySize(key, old)
	} else if len(s.view) >= s.limits.maxValues {
		return fmt.Sprintf(storeCountText, s.limits.maxValues)
	}
	if bytes > s.limits.maxBytes {
		return fmt.Sprintf(storeSizeText, s.limits.maxBytes)
	}
	s.view[key] = string(value)
	s.writes[key] = string(value)
	s.bytes = bytes
	return ""
}

func (s *cellStore) get(key string) (string, bool) {
	v, ok := s.view[key]
	return v, ok
}

// commit merges writes into committed, unless the result would exceed the limits; it returns the
// error text then, and committed is unchanged.
func (l storeLimits) commit(committed, writes storedValues) string {
	if len(writes) == 0 {
		return ""
	}
	count, bytes := len(committed), committed.totalSize()
	for k, v := range writes {
		if old, ok := committed[k]; ok {
			bytes -= entrySize(k, old)
		} else {
			count++
		}
		bytes += entrySize(k, v)
	}
	if count > l.maxValues || bytes > l.maxBytes {
		return fmt.Sprintf(storeCommitText, l.maxValues, l.maxBytes)
	}
	for k, v := range writes {
		committed[k] = v
	}
	return ""
}
