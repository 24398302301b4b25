package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// TestMain removes the built binary after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds ./cmd/botgw once per test run, as a user would; with -race
// when the tests run with -race (raceBuild).
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "botgw-bin")
		if err != nil {
			buildErr = err
			return
		}
		binDir, binPath = dir, filepath.Join(dir, "botgw")
		args := []string{"build", "-o", binPath}
		if raceBuild {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

var (
	plainOnce sync.Once
	plainPath string
	plainErr  error
)

// plainBinary is the gateway as a user builds it (CGO_ENABLED=0, no -race,
// as .ci/run builds it first), for measuring its memory.
func plainBinary(t *testing.T) string {
	t.Helper()
	binary(t) // makes binDir
	plainOnce.Do(func() {
		plainPath = filepath.Join(binDir, "botgw-plain")
		cmd := exec.Command("go", "build", "-o", plainPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			plainErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if plainErr != nil {
		t.Fatal(plainErr)
	}
	return plainPath
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// runBinary starts the built gateway with config (YAML text) and returns
// its base URL once /healthz answers; the process gets SIGTERM at the end.
func runBinary(t *testing.T, config string, env ...string) string {
	t.Helper()
	bin := binary(t)
	cfgPath := writeFile(t, config)
	addr := freePort(t)
	cmd := exec.Command(bin, "serve", "-config", cfgPath, "-listen", addr)
	cmd.Env = append(os.Environ(), env...)
	var logs lockedBuffer // the process's output copier writes while the test reads
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("gateway did not stop within 30s of SIGINT")
		}
		checkRaces(t, "gateway", logs.String())
		if t.Failed() {
			t.Logf("gateway output:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if res, err := http.Get(base + "/healthz"); err == nil {
			res.Body.Close()
			return base
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("gateway did not answer /healthz within 15s:\n%s", logs.String())
	return ""
}

// checkRaces fails the test when a race-built gateway reported a data race.
func checkRaces(t *testing.T, name, output string) {
	t.Helper()
	if i := strings.Index(output, "WARNING: DATA RACE"); i >= 0 {
		t.Errorf("%s raced:\n%s", name, output[i:])
	}
}
