// Package recent holds a bounded set of the keys seen last. Every driver remembers recent
// identifiers (request, session, execution, wait, invocation and delegate IDs) so that a peer
// cannot reuse one, without growing for the life of a connection: the oldest key is forgotten
// first. It is the one such set of the module: the V1 and gRPC adapters share it.
package recent

// Limit is how many keys a zero Set remembers: Codex's MAX_RECENT_REQUEST_IDS and
// MAX_RECENT_CALLBACK_IDS, the bound of both its V1 and its gRPC peers. It is the window in which a
// reused id is refused (docs/protocol/v1.md#sessions), so a client meets the same refusals here.
const Limit = 4_096

// Set remembers the last keys added (Limit, or the n given to New), forgetting the oldest first.
// The zero value is ready. It is not safe for concurrent use: its owner guards it.
type Set[K comparable] struct {
	n       int
	entries map[K]entry
	order   []K // ring of slots, oldest at head once full
	head    int
}

// entry is one key: whether it is a member, and how many slots of the ring name it (a removed
// and re-remembered key has an old slot that must not evict the new membership).
type entry struct {
	member bool
	slots  int
}

// New returns an empty Set that remembers at most n keys (n > 0).
func New[K comparable](n int) Set[K] {
	return Set[K]{n: n}
}

// capacity is how many slots the ring has.
func (r *Set[K]) capacity() int {
	if r.n > 0 {
		return r.n
	}
	return Limit
}

// Contains reports whether k is a member.
func (r *Set[K]) Contains(k K) bool { return r.entries[k].member }

// Remember adds k and reports whether it was not a member; a full set forgets its oldest slot.
func (r *Set[K]) Remember(k K) bool {
	e := r.entries[k]
	if e.member {
		return false
	}
	if r.entries == nil {
		r.entries = make(map[K]entry)
	}
	r.entries[k] = entry{member: true, slots: e.slots + 1}
	if len(r.order) < r.capacity() {
		r.order = append(r.order, k)
		return true
	}
	r.expire(r.order[r.head])
	r.order[r.head] = k
	r.head = (r.head + 1) % r.capacity()
	return true
}

// expire drops one slot of k, and k with its last slot.
func (r *Set[K]) expire(k K) {
	e := r.entries[k]
	if e.slots <= 1 {
		delete(r.entries, k)
		return
	}
	e.slots--
	r.entries[k] = e
}

// Remove ends k's membership and reports whether it was a member; its slot expires in turn.
func (r *Set[K]) Remove(k K) bool {
	e, ok := r.entries[k]
	if !ok || !e.member {
		return false
	}
	e.member = false
	r.entries[k] = e
	return true
}
