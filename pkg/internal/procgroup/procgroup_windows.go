//go:build windows

package procgroup

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// system is the group's job object. A job is the robust way to own a process tree on Windows:
// a process joins its parent's job when it is created, so no descendant can start outside it
// (breakaway is not allowed), and one TerminateJobObject kills them all, while walking the
// tree at kill time (taskkill /T) misses processes whose parent already exited (Windows does not
// re-parent them) and may hit a reused pid. The process starts suspended and runs only once it is
// in the job, so not even its first children escape.
type system struct {
	job    windows.Handle // 0 until the process is in its job
	joined bool
}

// prepare makes the command start suspended, in a new console process group (so that
// CTRL_BREAK_EVENT can address it).
func (g *Group) prepare() {
	if g.cmd.SysProcAttr == nil {
		g.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	g.cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP
}

// started puts the suspended process in a new job object, then lets it run.
func (g *Group) started() error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create a job object for %s: %w", g.cmd.Path, err)
	}
	// The handle is released with the Group; Kill must work for as long as the caller holds it.
	runtime.AddCleanup(g, func(h windows.Handle) { _ = windows.CloseHandle(h) }, job)
	g.sys.job = job
	pid := uint32(g.cmd.Process.Pid)
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		return fmt.Errorf("put process %d in its job object: %w", pid, err)
	}
	g.sys.joined = true
	return resumeThreads(pid)
}

// resumeThreads resumes the threads of process pid (a process created suspended has one).
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list the threads of process %d: %w", pid, err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		thread, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		_, err = windows.ResumeThread(thread)
		_ = windows.CloseHandle(thread)
		if err != nil {
			return fmt.Errorf("resume thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("list the threads of process %d: %w", pid, err)
	}
	if resumed == 0 {
		return fmt.Errorf("process %d has no thread to resume", pid)
	}
	return nil
}

// kill terminates every process of the job; before the process joined it, the process alone
// (suspended, it has started nothing).
func (g *Group) kill() error {
	if !g.sys.joined {
		return g.cmd.Process.Kill()
	}
	return windows.TerminateJobObject(g.sys.job, 1)
}

// interrupt sends CTRL_BREAK_EVENT to the command's console process group (Windows has no
// SIGINT for a process group; CTRL_C_EVENT cannot address one).
func (g *Group) interrupt() error {
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(g.cmd.Process.Pid))
}
