package toolprovider

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// fakeRuns replaces a tool's command with calls that block until released, counting how many
// run at once. It must be created inside the synctest bubble that uses it.
type fakeRuns struct {
	mu               sync.Mutex
	running, started int
	release          chan struct{}
}

func (f *fakeRuns) run(ctx context.Context, _ []byte) ([]byte, error) {
	f.mu.Lock()
	f.running++
	f.started++
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.running--
		f.mu.Unlock()
	}()
	select {
	case <-f.release:
		return []byte(`{}`), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *fakeRuns) counts() (running, started int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running, f.started
}

// At most max_concurrency calls of a tool run at once; the others wait, in a bubble where
// "waiting" is observable (synctest.Wait returns once every goroutine is blocked).
func TestMaxConcurrencyBoundsTheCallsThatRunAtOnce(t *testing.T) {
	p := loadTools(t, helperTool("slow", "echo", map[string]any{"max_concurrency": 2}))
	synctest.Test(t, func(t *testing.T) {
		fake := &fakeRuns{release: make(chan struct{})}
		tool := p.tools[0]
		tool.run, tool.slots = fake.run, make(chan struct{}, cap(tool.slots))

		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				if _, err := tool.invoke(context.Background(), nil); err != nil {
					t.Error(err)
				}
			})
		}
		for want := 2; want <= 5; want++ {
			synctest.Wait()
			if running, started := fake.counts(); running != 2 || started != want {
				t.Fatalf("%d running, %d started; want 2 running, %d started", running, started, want)
			}
			fake.release <- struct{}{}
		}
		fake.release <- struct{}{}
		wg.Wait()
	})
}

// A call waiting for a slot gives up when its ctx ends, and never starts its command.
func TestACallWaitingForASlotStopsWhenItsContextEnds(t *testing.T) {
	p := loadTools(t, helperTool("slow", "echo", map[string]any{"max_concurrency": 1}))
	synctest.Test(t, func(t *testing.T) {
		fake := &fakeRuns{release: make(chan struct{})}
		tool := p.tools[0]
		tool.run, tool.slots = fake.run, make(chan struct{}, 1)

		go tool.invoke(context.Background(), nil)
		// The first call holds the slot before the second asks for it: without this wait the
		// second could take the slot first, end with its context, and let the first start.
		synctest.Wait()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := tool.invoke(ctx, nil)
			done <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("waiting call: %v", err)
		}
		if _, started := fake.counts(); started != 1 {
			t.Errorf("%d commands started, want 1", started)
		}
		fake.release <- struct{}{}
	})
}

func TestBoundedBufferKeepsHeadAndTail(t *testing.T) {
	b := &boundedBuffer{limit: 8}
	for _, chunk := range []string{"ab", "cdef", "ghij", "klmnop"} {
		b.Write([]byte(chunk))
	}
	if got, want := b.String(), "abcd\n… 8 bytes omitted …\nmnop"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	short := &boundedBuffer{limit: 16}
	short.Write([]byte("  abcdef \n"))
	if got := short.String(); got != "abcdef" {
		t.Errorf("a short text: %q", got)
	}
	// A character cut at the edges is dropped rather than sent as invalid UTF-8.
	cut := &boundedBuffer{limit: 2}
	cut.Write([]byte("é" + strings.Repeat("x", 10) + "é"))
	if got, want := cut.String(), "… 12 bytes omitted …"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// A Delegate routes each call to the set that defines its tool, refuses the same name twice,
// and hands notifications to its callback.
func TestDelegateRoutesCallsByToolName(t *testing.T) {
	a := staticSet{def("alpha"), def("shared")}
	b := staticSet{def("beta")}
	var notes []string
	d, err := NewDelegate(func(_ context.Context, callID string, cellID codemode.CellID, text string) error {
		notes = append(notes, callID+"/"+string(cellID)+": "+text)
		return nil
	}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if names := defNames(d.Definitions()); names != "alpha shared beta" {
		t.Errorf("definitions %s", names)
	}
	for _, name := range []string{"alpha", "beta"} {
		out, err := d.InvokeTool(context.Background(), codemode.NestedToolCall{ToolName: codemode.ToolName{Name: name}, ToolKind: codemode.ToolKindFunction})
		if err != nil || string(out) != `"`+name+`"` {
			t.Errorf("%s: %s, %v", name, out, err)
		}
	}
	if _, err := d.InvokeTool(context.Background(), codemode.NestedToolCall{ToolName: codemode.ToolName{Name: "gamma"}}); err == nil ||
		err.Error() != "code-mode tool gamma is not enabled for this execution" {
		t.Errorf("unknown tool: %v", err)
	}
	if err := d.Notify(context.Background(), "call-1", "3", "hello"); err != nil || len(notes) != 1 || notes[0] != "call-1/3: hello" {
		t.Errorf("notify: %v, %q", err, notes)
	}
	if _, err := NewDelegate(nil, a, staticSet{def("shared")}); err == nil || err.Error() != "two tools are named shared" {
		t.Errorf("a name defined twice: %v", err)
	}
	quiet, _ := NewDelegate(nil, b)
	if err := quiet.Notify(context.Background(), "c", "1", "dropped"); err != nil {
		t.Errorf("notify without a callback: %v", err)
	}
}

// staticSet is a ToolSet whose tools return their own name.
type staticSet []codemode.ToolDefinition

func (s staticSet) Definitions() []codemode.ToolDefinition { return s }

func (s staticSet) InvokeTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	return json.Marshal(call.ToolName.Name)
}

func def(name string) codemode.ToolDefinition {
	return codemode.ToolDefinition{Name: name, ToolName: codemode.ToolName{Name: name}, Kind: codemode.ToolKindFunction}
}

func defNames(defs []codemode.ToolDefinition) string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return strings.Join(names, " ")
}
