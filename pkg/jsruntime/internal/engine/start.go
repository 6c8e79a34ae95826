package engine

// Start prepares the first runtime, whose memory image every later one adopts, proves on a second
// one that a running script can be interrupted (so that a broken engine fails here instead of in a
// cell), and starts a pool that keeps warm runtimes ready and holds at most capacity idle ones.
//
// The runtime that compiles the prelude is not the one imaged: compiling leaves the parser's
// freed memory dirty, and every reset would copy those pages back (with the locale script,
// docs/adr/0063-en-us-locale-and-a-small-intl.md, 889 KB of data pages against 467 KB). The
// bytecode is cached for the process (scripts.go), so a second runtime evaluates it without
// compiling, and its memory is the image.
func Start(cfg Config, warm, capacity int) (*Pool, error) {
	compiler, err := newEngine(cfg, nil)
	if err != nil {
		return nil, err
	}
	compiler.dispose()
	first, err := newEngine(cfg, nil)
	if err != nil {
		return nil, err
	}
	probe, err := newEngine(cfg, first.img)
	if err != nil {
		first.dispose()
		return nil, err
	}
	if err := probe.checkInterruptible(); err != nil {
		first.dispose()
		return nil, err
	}
	return newPool(cfg, first, warm, capacity), nil
}
