package v1client

import (
	"sync/atomic"

	"github.com/codemodehq/codemode/gen/go/wirev1"
)

// tolerantDecoder reads host messages of every wire generation (docs/protocol/v1.md#wire-generations):
// runtime responses with or without code_mode_host_duration_ns, Results with or without
// result_buffered_for_ns. Messages without a runtime response decode alike
// in all generations; for the others it tries the generation that worked last, then the rest,
// so a connection pays for a second parse only when its host's generation is first learnt.
type tolerantDecoder struct {
	last atomic.Uint32
}

// newTolerantDecoder starts with the generation current hosts serve.
func newTolerantDecoder() *tolerantDecoder {
	d := &tolerantDecoder{}
	d.last.Store(uint32(wirev1.GenerationBoundedOutput))
	return d
}

// decode returns the message in the first generation that accepts it, or the error of the
// generation tried first.
func (d *tolerantDecoder) decode(data []byte) (wirev1.HostToClient, error) {
	first := wirev1.Generation(d.last.Load())
	m, err := wirev1.DecodeHostToClientFor(first, data)
	if err == nil {
		return m, nil
	}
	for _, g := range wirev1.Generations() {
		if g == first {
			continue
		}
		if m, gerr := wirev1.DecodeHostToClientFor(g, data); gerr == nil {
			d.last.Store(uint32(g))
			return m, nil
		}
	}
	return nil, err
}
