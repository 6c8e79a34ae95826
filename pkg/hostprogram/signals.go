package hostprogram

import (
	"os"
	"sync"
	"syscall"

	"github.com/oklog/run"
)

// signalActor ends the group at the first signal; a second one exits the process at once.
type signalActor struct {
	signals <-chan os.Signal
	p       *Program
	quit    chan struct{}
	once    sync.Once
	done    chan struct{} // closed when Run has returned: a later signal is not ours to handle
}

func newSignalActor(signals <-chan os.Signal, p *Program) *signalActor {
	return &signalActor{signals: signals, p: p, quit: make(chan struct{}), done: make(chan struct{})}
}

// execute waits for the first signal and returns it as a run.SignalError.
func (s *signalActor) execute() error {
	select {
	case sig := <-s.signals:
		s.p.log.Info("code-mode host received a signal; draining (a second signal exits at once)", "signal", sig.String())
		go s.watchSecond()
		return run.SignalError{Signal: sig}
	case <-s.quit:
		go s.watchSecond()
		return nil
	}
}

func (s *signalActor) interrupt(error) { s.once.Do(func() { close(s.quit) }) }

// watchSecond exits at once on a signal during the drain: 128 + the signal's number, as a shell
// reports a process killed by it.
func (s *signalActor) watchSecond() {
	select {
	case sig := <-s.signals:
		s.p.log.Warn("code-mode host received a second signal; exiting without draining", "signal", sig.String())
		code := 1
		if n, ok := sig.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		s.p.Exit(code)
	case <-s.done:
	}
}

// finished stops watching for signals.
func (s *signalActor) finished() { close(s.done) }
