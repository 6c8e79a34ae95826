package procgroup

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// guard bounds how long a test waits for an event that must happen; it fails a hang, it never
// times anything.
const guard = time.Minute

// helperEnv makes the test binary a helper process instead of running tests: "parent" starts a
// "child" (the test binary again) on its own stdout, prints ready and waits forever; "child" waits
// forever. Both hold the stdout they were given, so its read end reaches end of file only once
// both are gone. The helpers are the test binary itself, so the test runs wherever the binary
// does (Linux, macOS, Windows), with no shell.
const helperEnv = "PROCGROUP_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "parent":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), helperEnv+"=child")
		child.Stdout = os.Stdout
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("ready")
		waitForever()
	case "child":
		waitForever()
	}
	os.Exit(m.Run())
}

// waitForever blocks until the process is killed (a bare select{} would end it: the runtime
// reports a deadlock when no goroutine can run).
func waitForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// Kill kills the whole tree: the command and the child it started, which would otherwise live on
// holding the pipe.
func TestKillKillsTheCommandAndItsChild(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=parent")
	cmd.Stdout, cmd.Stderr = w, os.Stderr
	g := New(cmd)
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ended := make(chan error, 1)
	go func() {
		lines := bufio.NewReader(r)
		if line, err := lines.ReadString('\n'); err != nil || line != "ready\n" {
			ended <- fmt.Errorf("the helper printed %q, %v; want ready", line, err)
			return
		}
		ended <- nil
		_, err := io.Copy(io.Discard, lines) // until every holder of the write end is gone
		ended <- err
	}()
	if err := await(t, ended, "the helper's ready line"); err != nil {
		t.Fatal(err)
	}
	if err := g.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if err := await(t, ended, "the end of the pipe (the child dying with its parent)"); err != nil {
		t.Fatalf("reading the pipe: %v", err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("Wait = nil, want the killed command's failure")
	}
}

// await returns the next value of c, failing the test if none comes within the guard.
func await(t *testing.T, c <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-c:
		return err
	case <-time.After(guard):
		t.Fatalf("waited %v for %s", guard, what)
		return nil
	}
}
