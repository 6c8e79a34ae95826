// Package recent holds a bounded set of the keys seen last. Both V1 drivers remember recent
// identifiers (request, session and delegate IDs) so that a peer cannot reuse one, without
// growing for the life of a connection: the oldest key is forgotten first.
package recent

// Set remembers the last n keys added, forgetting the oldest first. The zero value is not
// usable; make one with New. It is not safe for concurrent use.
type Set[K comparable] struct {
	n     int
	set   map[K]struct{}
	order []K // ring of the keys in set, oldest at head
	head  int
}

// New returns an empty Set that remembers at most n keys (n > 0).
func New[K comparable](n int) Set[K] {
	return Set[K]{n: n, set: map[K]struct{}{}}
}

// Contains reports whether k is among the remembered keys.
func (r *Set[K]) Contains(k K) bool {
	_, ok := r.set[k]
	return ok
}

// Remember adds k and reports whether it was new; a full set forgets its oldest key.
func (r *Set[K]) Remember(k K) bool {
	if r.Contains(k) {
		return false
	}
	r.set[k] = struct{}{}
	if len(r.order) < r.n {
		r.order = append(r.order, k)
		return true
	}
	delete(r.set, r.order[r.head])
	r.order[r.head] = k
	r.head = (r.head + 1) % r.n
	return true
}
