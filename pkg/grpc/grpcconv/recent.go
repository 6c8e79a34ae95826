package grpcconv

// MaxRecentIDs is how many IDs a peer remembers to refuse their reuse: the host its execution,
// wait and invocation IDs, the client its invocation IDs and early cancellations (Codex's
// MAX_RECENT_REQUEST_IDS and MAX_RECENT_CALLBACK_IDS).
const MaxRecentIDs = 4_096

// RecentIDs is a set that forgets its oldest members past MaxRecentIDs. The zero value is ready;
// it is not safe for concurrent use.
type RecentIDs[T comparable] struct {
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

// Remember adds id and reports whether it was not a member.
func (r *RecentIDs[T]) Remember(id T) bool {
	e := r.entries[id]
	if e.member {
		return false
	}
	if r.entries == nil {
		r.entries = make(map[T]recentEntry)
	}
	r.entries[id] = recentEntry{member: true, slots: e.slots + 1}
	if len(r.order) < MaxRecentIDs {
		r.order = append(r.order, id)
		return true
	}
	r.expire(r.order[r.head])
	r.order[r.head] = id
	r.head = (r.head + 1) % MaxRecentIDs
	return true
}

// expire drops one slot of id, and id with its last slot.
func (r *RecentIDs[T]) expire(id T) {
	e := r.entries[id]
	if e.slots <= 1 {
		delete(r.entries, id)
		return
	}
	e.slots--
	r.entries[id] = e
}

// Contains reports whether id is a member.
func (r *RecentIDs[T]) Contains(id T) bool { return r.entries[id].member }

// Remove ends id's membership and reports whether it was a member; its slot expires in turn.
func (r *RecentIDs[T]) Remove(id T) bool {
	e, ok := r.entries[id]
	if !ok || !e.member {
		return false
	}
	e.member = false
	r.entries[id] = e
	return true
}
