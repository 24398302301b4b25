package gateway

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// process is a child process a test runs (a gateway replica, a
// redis-server): started once or again, its end awaited.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has ended
}

// run starts cmd with its output going to out (nil: discarded).
func (p *process) run(t *testing.T, cmd *exec.Cmd, out io.Writer) {
	t.Helper()
	if out != nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	p.cmd, p.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(p.done)
}

// running reports whether the process was started and has not ended.
func (p *process) running() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// kill ends the process with SIGKILL: no shutdown, nothing flushed (a
// replica's leases are left to expire; a redis-server keeps only what its
// append-only file holds).
func (p *process) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// terminate sends sig and waits for the process to end; after within, it
// kills the process and fails the test, naming it. A no-op when it is not
// running.
func (p *process) terminate(t *testing.T, name string, sig os.Signal, within time.Duration) {
	t.Helper()
	if !p.running() {
		return
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(within):
		p.kill(t)
		t.Errorf("%s did not stop within %s of %v", name, within, sig)
	}
}
