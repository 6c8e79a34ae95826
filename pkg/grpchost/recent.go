package grpchost

// maxRecentIDs is how many execution, wait and invocation IDs a session remembers to refuse
// their reuse (Codex's MAX_RECENT_REQUEST_IDS).
const maxRecentIDs = 4_096

// recentIDs is a set that forgets its oldest members past maxRecentIDs. The zero value is ready.
type recentIDs[T comparable] struct {
	entries map[T]recentEntry
	order   []T
	head    int // index in order of the oldest slot once order is full
}

// recentEntry is one ID: whether it is a member, and how many slots of the order name it (a
// removed and re-remembered ID has an old slot that must not evict the new membership).
type recentEntry struct {
	member bool
	slots  int
}

// remember adds id and reports whether it was not a member.
func (r *recentIDs[T]) remember(id T) bool {
	e := r.entries[id]
	if e.member {
		return false
	}
	if r.entries == nil {
		r.entries = make(map[T]recentEntry)
	}
	r.entries[id] = recentEntry{member: true, slots: e.slots + 1}
	if len(r.order) < maxRecentIDs {
		r.order = append(r.order, id)
		return true
	}
	r.expire(r.order[r.head])
	r.order[r.head] = id
	r.head = (r.head + 1) % maxRecentIDs
	return true
}

// expire drops one slot of id, and id with its last slot.
func (r *recentIDs[T]) expire(id T) {
	e := r.entries[id]
	if e.slots <= 1 {
		delete(r.entries, id)
		return
	}
	e.slots--
	r.entries[id] = e
}

// contains reports whether id is a member.
func (r *recentIDs[T]) contains(id T) bool { return r.entries[id].member }

// remove ends id's membership and reports whether it was a member; its slot expires in turn.
func (r *recentIDs[T]) remove(id T) bool {
	e, ok := r.entries[id]
	if !ok || !e.member {
		return false
	}
	e.member = false
	r.entries[id] = e
	return true
}
