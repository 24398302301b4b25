package gateway

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiling of a serve run, for performance work (see README "Performance"):
// BOTGW_CPUPROFILE names a file that receives a CPU profile of the whole
// run, BOTGW_MEMPROFILE one that receives the allocation profile at exit.
// Environment variables rather than flags, so a harness that starts
// `botgw serve` unchanged can still profile it.
const (
	envCPUProfile = "BOTGW_CPUPROFILE"
	envMemProfile = "BOTGW_MEMPROFILE"
)

// StartProfiles starts what the environment asks for; stop writes and
// closes the profiles.
func StartProfiles() (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	if path := os.Getenv(envCPUProfile); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return stop, fmt.Errorf("cpu profile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return stop, fmt.Errorf("cpu profile: %w", err)
		}
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if path := os.Getenv(envMemProfile); path != "" {
		stops = append(stops, func() { writeHeapProfile(path) })
	}
	return stop, nil
}

// writeHeapProfile writes the allocation profile (alloc_space/objects of
// the whole run) to path; a failure is printed, not fatal.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "botgw: mem profile:", err)
		return
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "botgw: mem profile:", err)
	}
}
