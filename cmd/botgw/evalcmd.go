package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"

	"github.com/botgw/botgw/cmd/botgw/eval"
)

// exitError ends the process with its code once err is printed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// invalid is exit status 2: the suites or the config are invalid.
func invalid(err error) error { return &exitError{code: 2, err: err} }

const evalUsage = `usage: botgw eval [-config FILE] [-model M] [-parallel N] [-repeat K] [-json FILE] [-junit FILE] [-html FILE] SUITE...
       botgw eval record CHAT [-config FILE] | -from-export FILE | -from-stream FILE | -from-kafka BROKERS TOPIC [CHAT]`

// evalFlags are botgw eval's options.
type evalFlags struct {
	f                      *flags
	model                  string
	parallel, repeat       int
	jsonOut, junit, htmlTo string
}

func newEvalFlags(stderr io.Writer) *evalFlags {
	e := &evalFlags{f: &flags{fs: flag.NewFlagSet("eval", flag.ContinueOnError)}}
	fs := e.f.fs
	fs.SetOutput(stderr)
	fs.StringVar(&e.f.config, "config", os.Getenv("BOTGW_CONFIG"), "config file (default $BOTGW_CONFIG)")
	fs.StringVar(&e.model, "model", "", "the model to run instead of provider.model")
	fs.IntVar(&e.parallel, "parallel", 8, "conversations run at once")
	fs.IntVar(&e.repeat, "repeat", 1, "runs of each conversation; reports each expectation's pass rate")
	fs.StringVar(&e.jsonOut, "json", "", "write the JSON report to FILE")
	fs.StringVar(&e.junit, "junit", "", "write a JUnit XML report to FILE")
	fs.StringVar(&e.htmlTo, "html", "", "write the HTML report to FILE")
	return e
}

// cmdEval runs suites through the engine (docs/evaluating.md). Exit
// status: 0 every expectation held, 1 one failed, 2 invalid suite or config.
func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "record" {
		return cmdEvalRecord(ctx, args[1:], stdout, stderr)
	}
	e := newEvalFlags(stderr)
	pos, err := e.f.parse(args)
	if err != nil {
		return invalid(err)
	}
	if e.parallel < 1 || e.repeat < 1 {
		return invalid(errors.New("eval: -parallel and -repeat want 1 or more"))
	}
	suites, err := eval.Load(pos)
	if err != nil {
		return invalid(err)
	}
	cfg, err := e.f.load()
	if err != nil {
		return invalid(errors.Join(errors.New("config:"), err))
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	runner, rig, err := eval.Setup(ctx, cfg, e.model, suites, log)
	if err != nil {
		return invalid(err)
	}
	defer rig.Close()
	runner.Parallel, runner.Repeat = e.parallel, e.repeat
	clear := progress(stdout, runner)
	rep := runner.Run(ctx, suites)
	clear()
	rep.Print(stdout)
	if err := e.write(rep); err != nil {
		return err
	}
	if rep.Failed > 0 {
		return &exitError{code: 1, err: errReported}
	}
	return ctx.Err()
}

// progress shows a progress bar while r runs when stdout is a terminal;
// the func returned clears it.
func progress(stdout io.Writer, r *eval.Runner) func() {
	f, ok := stdout.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	bar := &eval.Bar{W: stdout}
	r.Progress = bar.Update
	return bar.Clear
}

// write writes the reports the flags ask for.
func (e *evalFlags) write(rep *eval.Report) error {
	for _, w := range []struct {
		file  string
		write func(string) error
	}{{e.jsonOut, rep.WriteJSON}, {e.junit, rep.WriteJUnit}, {e.htmlTo, rep.WriteHTML}} {
		if w.file == "" {
			continue
		}
		if err := w.write(w.file); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	return nil
}
