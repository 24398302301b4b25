package gateway

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/syncbuf"
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
		out, err := exec.Command("go", append(args, "..")...).CombinedOutput()
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
		cmd := exec.Command("go", "build", "-o", plainPath, "..")
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
// its base URL once /healthz answers; the process gets SIGINT at the end.
func runBinary(t *testing.T, config string, env ...string) string {
	t.Helper()
	addr := freePort(t)
	cmd := exec.Command(binary(t), "serve", "-config", e2e.WriteFile(t, config), "-listen", addr)
	cmd.Env = append(os.Environ(), env...)
	var p process
	var logs syncbuf.Buffer
	p.run(t, cmd, &logs)
	t.Cleanup(func() {
		p.terminate(t, "gateway", os.Interrupt, 30*time.Second)
		checkRaces(t, "gateway", logs.String())
		if t.Failed() {
			t.Logf("gateway output:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	e2e.AwaitHealthy(t, base, "the gateway")
	return base
}

// checkRaces fails the test when a race-built gateway reported a data race.
func checkRaces(t *testing.T, name, output string) {
	t.Helper()
	if i := strings.Index(output, "WARNING: DATA RACE"); i >= 0 {
		t.Errorf("%s raced:\n%s", name, output[i:])
	}
}
