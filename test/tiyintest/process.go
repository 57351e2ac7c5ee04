// Package tiyintest drives a built tiyin binary from outside, as a partner would: it builds and
// starts `tiyin serve` processes, and walks a client through the whole microloan process over
// HTTP. The crash harness and the load harness share it.
package tiyintest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Build compiles cmd/tiyin of the module at root into dir and returns the binary's path.
func Build(root, dir string) (string, error) {
	bin := filepath.Join(dir, "tiyin")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/tiyin")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %w\n%s", err, out)
	}
	return bin, nil
}

// FreeAddr returns a loopback address nothing listens on.
func FreeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// Node is one `tiyin serve` process; its output is kept for when it misbehaves.
type Node struct {
	URL  string    // base URL, from TIYIN_HTTP_ADDR
	Bin  string    // the binary
	Env  []string  // the process environment
	Out  io.Writer // where its output goes; nil keeps it in memory (see Output)
	Down atomic.Bool

	mu  sync.Mutex
	cmd *exec.Cmd
	out *bytes.Buffer
}

// NewNode is a node of bin on a free address with the environment of this process plus env.
func NewNode(bin string, env ...string) *Node {
	addr := FreeAddr()
	return &Node{URL: "http://" + addr, Bin: bin, Env: append(append(os.Environ(), "TIYIN_HTTP_ADDR="+addr, "TIYIN_ADMIN_ADDR=127.0.0.1:0"), env...)}
}

// Start starts the process and waits up to a minute for /readyz.
func (n *Node) Start() error {
	n.mu.Lock()
	n.out = &bytes.Buffer{}
	var out io.Writer = n.out
	if n.Out != nil {
		out = n.Out
	}
	n.cmd = exec.Command(n.Bin, "serve")
	n.cmd.Env, n.cmd.Stdout, n.cmd.Stderr = n.Env, out, out
	if err := n.cmd.Start(); err != nil {
		n.mu.Unlock()
		return err
	}
	n.mu.Unlock()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(n.URL + "/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				n.Down.Store(false)
				return nil
			}
		}
	}
	return fmt.Errorf("tiyin never became ready:\n%s", n.Output())
}

// Output is what the process printed so far.
func (n *Node) Output() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.out.String()
}

// Kill ends the process with SIGKILL.
func (n *Node) Kill() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.Down.Store(true)
	_ = n.cmd.Process.Signal(syscall.SIGKILL)
	_ = n.cmd.Wait()
}

// Stop sends SIGTERM and waits up to 30 s for a clean exit.
func (n *Node) Stop() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- n.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("graceful stop: %w", err)
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = n.cmd.Process.Kill()
		return fmt.Errorf("tiyin did not stop within 30 s of SIGTERM")
	}
}

// PID is the process id of the running process.
func (n *Node) PID() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cmd.Process.Pid
}

// RSS is the process's resident memory in bytes (Linux), 0 where it cannot be read.
func (n *Node) RSS() int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", n.PID()))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
