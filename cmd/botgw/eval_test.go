package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/providers/providertest"
	"github.com/botgw/botgw/state/redistest"
)

// evalConfig writes a config on the fake model API, with the game's
// get_score tool (never called: eval answers it from the suite), and
// returns its path. extra is appended to the YAML.
func evalConfig(t *testing.T, model *providertest.OpenAI, extra string) string {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	return e2e.WriteFile(t, fmt.Sprintf(`system_prompt: "You are the guide of a location game."
provider:
  kind: openai
  base_url: %s/v1
  api_key: sk-test
  model: gpt-4o-mini
  max_retries: 0
channels:
  web: {}
compaction:
  strategy: none
tools:
  - name: get_score
    description: The score of a team.
    url: http://game.invalid/api/score
    parameters: {type: object, properties: {team: {type: string}}}
%s`, model.URL, extra))
}

// writeSuite writes a suite file and returns its path.
func writeSuite(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// evalRun runs `botgw eval ARGS` and returns stdout, stderr and the exit
// status main would set.
func evalRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"eval"}, args...), &out, &errOut)
	code := 0
	if err != nil {
		code = 1
		if xe, ok := errors.AsType[*exitError](err); ok {
			code = xe.code
		}
		if !errors.Is(err, errReported) {
			errOut.WriteString(err.Error())
		}
	}
	return out.String(), errOut.String(), code
}

// scripted answers the model's calls in order; the judge's too.
func scripted(t *testing.T, answers ...providertest.Answer) *providertest.OpenAI {
	return providertest.NewOpenAI(t, providertest.Script(func(n int) providertest.Answer {
		if n >= len(answers) {
			t.Errorf("model call %d: only %d scripted", n, len(answers))
			return providertest.OpenAIStatus(500)
		}
		return answers[n]
	}))
}

const firstSteps = `name: first steps
tools:
  get_score: {"score": 50, "rank": 3}
conversations:
  - name: pin then question
    steps:
      - event: {text: "The player joined team Red", key: team}
      - user: "I'm at the station. What now?"
        expect:
          - contains: STATION
          - not_contains: sorry
          - matches: "(?i)clue|hint"
          - tool_called: {name: get_score, args: {team: Red}}
          - max_tokens: 1500
      - user: "thanks"
        baseline: "You're welcome!"
        expect:
          - contains: welcome
`

func TestEvalPassesAndSendsTheEventBeforeTheMessage(t *testing.T) {
	model := scripted(t,
		providertest.ToolCalls([3]string{"call_1", "get_score", `{"team":"Red"}`}),
		providertest.Completion("Red has 50 points. At the station, look for a clue under the clock."),
		providertest.Completion("You're most welcome!"))
	cfg := evalConfig(t, model, "")
	suite := writeSuite(t, t.TempDir(), "first.yaml", firstSteps)
	out, errOut, code := evalRun(t, "-config", cfg, suite)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "PASS  first steps › pin then question") || !strings.Contains(out, "1 passed, 0 failed") {
		t.Errorf("terminal report:\n%s", out)
	}
	first := model.Calls()[0].Body.Messages
	event, user := -1, -1
	for i, m := range first {
		if strings.Contains(m.Text(), "The player joined team Red") {
			event = i
		}
		if strings.Contains(m.Text(), "I'm at the station") {
			user = i
		}
	}
	if event < 0 || user < 0 || event > user {
		t.Errorf("the event (message %d) should come before the player's message (%d): %+v", event, user, first)
	}
	second := model.Calls()[1].Body.Messages
	if last := second[len(second)-1]; last.Role != "tool" || !strings.Contains(last.Text(), `"rank": 3`) && !strings.Contains(last.Text(), `"rank":3`) {
		t.Errorf("the tool's answer should be the suite's: %+v", last)
	}
}

func TestEvalFailsNamingTheExpectationAndTheReply(t *testing.T) {
	model := scripted(t,
		providertest.Completion("Sorry, I don't know where you are."),
		providertest.Completion("Bye."))
	cfg := evalConfig(t, model, "")
	suite := writeSuite(t, t.TempDir(), "first.yaml", strings.Replace(firstSteps, "      - event: {text: \"The player joined team Red\", key: team}\n", "", 1))
	out, _, code := evalRun(t, "-config", cfg, suite)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"FAIL  first steps › pin then question",
		`reply: Sorry, I don't know where you are.`,
		`✗ contains: "STATION" (` + suite + `:9): the reply does not contain "STATION"`,
		`✗ not_contains: "sorry"`,
		`✗ tool_called: get_score {"team":"Red"}`, "no tool was called",
		`✗ contains: "welcome" (` + suite + `:17)`,
		"0 passed, 1 failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestEvalReportsInvalidSuitesWithFileLineAndField(t *testing.T) {
	model := scripted(t)
	cfg := evalConfig(t, model, "")
	dir := t.TempDir()
	bad := writeSuite(t, dir, "bad.yaml", `name: broken
conversations:
  - name: one
    steps:
      - shout: "hello"
      - user: "hi"
        expect:
          - matches: "([a-z"
          - contain: station
`)
	tools := writeSuite(t, dir, "tools.yaml", `name: tools
bot: quest
tools:
  get_scor: {"score": 1}
conversations:
  - steps:
      - user: "hi"
`)
	out, errOut, code := evalRun(t, "-config", cfg, bad)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		bad + ":5: conversations[0].steps[0].shout: unknown key",
		bad + ":8: conversations[0].steps[1].expect[0].matches: the regular expression does not compile",
		bad + ":9: conversations[0].steps[1].expect[1].contain: unknown key",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("errors lack %q:\n%s", want, errOut)
		}
	}
	_, errOut, code = evalRun(t, "-config", cfg, tools)
	if code != 2 || !strings.Contains(errOut, tools+`:2: bot: the config has no bot "quest"`) ||
		!strings.Contains(errOut, tools+":4: tools.get_scor: the config declares no such tool") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
	if n := len(model.Calls()); n != 0 {
		t.Errorf("an invalid suite should run nothing; the model got %d calls", n)
	}
}

func TestEvalLeavesTheConfiguredRedisAlone(t *testing.T) {
	url := redistest.URL(t)
	prefix := redistest.Prefix(t, url)
	model := providertest.NewOpenAI(t, providertest.Echo())
	cfg := evalConfig(t, model, fmt.Sprintf("redis:\n  url: %q\n  key_prefix: %q\n", url, prefix))
	suite := writeSuite(t, t.TempDir(), "echo.yaml", `conversations:
  - steps:
      - user: "hello there"
        expect: [{contains: "hello there"}]
`)
	if out, errOut, code := evalRun(t, "-config", cfg, suite); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 0 {
		t.Errorf("eval wrote to the configured Redis: %v", keys)
	}
}

func TestEvalJudgeTapsChoicesAndReports(t *testing.T) {
	model := scripted(t,
		providertest.ToolCalls([3]string{"c1", "offer_choices", `{"choices":["Go north","Go south"]}`}),
		providertest.Completion("Pick a way."),
		providertest.Completion(`{"pass": false, "reason": "The reply names the answer: the clock."}`),
		providertest.Completion("North it is: the clock tower."),
		providertest.Completion("not json at all"))
	cfg := evalConfig(t, model, "")
	dir := t.TempDir()
	suite := writeSuite(t, dir, "taps.yaml", `name: taps
conversations:
  - name: choose a way
    steps:
      - location: {latitude: 53.9921, longitude: -1.5418}
        expect:
          - choices: ["go north"]
          - judge: "The reply gives a hint without naming the answer."
      - tap: "Go north"
        baseline: "North: look up."
        expect:
          - judge: "The reply is friendly."
      - tap: "Go east"
`)
	jsonFile, junitFile := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	out, errOut, code := evalRun(t, "-config", cfg, "-json", jsonFile, "-junit", junitFile, suite)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		`✗ judge: "The reply gives a hint without naming the answer." (` + suite + `:8): The reply names the answer: the clock.`,
		suite + `:12): judge: the answer is not JSON {"pass": bool, "reason": string}: "not json at all"`,
		`stopped: ` + suite + `:13: tap "Go east": the last reply offered no choices`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	calls := model.Calls()
	if pin := calls[0].Body.Messages; pin[len(pin)-1].Text() != "53.99210, -1.54180" {
		t.Errorf("the pin should reach the model as its coordinates: %+v", calls[0].Body.Messages)
	}
	if rf := string(calls[2].Body.ResponseFormat); !strings.Contains(rf, `"type":"json_schema"`) || !strings.Contains(rf, `"pass"`) {
		t.Errorf("the judge should be asked for json_schema output, got %s", rf)
	}
	if tap := calls[3].Body.Messages; tap[len(tap)-1].Text() != "Go north" {
		t.Errorf("the tap should reach the model as the choice's label: %+v", tap[len(tap)-1])
	}
	rep := readJSON(t, jsonFile)
	steps := rep.Conversations[0].Steps
	if rep.Failed != 1 || len(steps) != 3 || steps[0].Choices[0] != "Go north" || !steps[0].Expect[0].Pass ||
		steps[0].Expect[1].Pass || steps[1].Baseline != "North: look up." || steps[1].Reply != "North it is: the clock tower." {
		t.Errorf("JSON report: %+v", rep)
	}
	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	b, _ := os.ReadFile(junitFile)
	if err := xml.Unmarshal(b, &junit); err != nil {
		t.Fatalf("JUnit: %v\n%s", err, b)
	}
	if junit.Tests != 1 || junit.Failures != 1 || junit.Suites[0].Cases[0].Name != "choose a way" ||
		!strings.Contains(junit.Suites[0].Cases[0].Failure.Message, "The reply names the answer") {
		t.Errorf("JUnit: %+v\n%s", junit, b)
	}
}

func TestEvalHTMLReportInABrowser(t *testing.T) {
	model := providertest.NewOpenAI(t, providertest.Echo())
	cfg := evalConfig(t, model, "")
	dir := t.TempDir()
	suite := writeSuite(t, dir, "html.yaml", `name: page
conversations:
  - name: greets back
    steps:
      - user: "hello"
        baseline: "Hi there, explorer!"
        expect: [{contains: hello}]
  - name: wants a clue
    steps:
      - user: "a clue please"
        baseline: "Look under the clock."
        expect: [{contains: clock}]
`)
	page := filepath.Join(dir, "report.html")
	if out, errOut, code := evalRun(t, "-config", cfg, "-html", page, suite); code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	ctx := e2e.Browser(t)
	err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("section.conv")))
	if err != nil {
		t.Fatal(err)
	}
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("section.conv")].filter(s => s.offsetHeight > 0).map(s => s.dataset.conversation)`))
	if err != nil {
		t.Fatal(err)
	}
	failed, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("section.conv.fail .expect.fail")].map(e => e.textContent)`))
	rows, _ := chromedp.Run(ctx, chromedp.Evaluate[[]map[string]string](`[...document.querySelectorAll("tr.step")].map(r => ({reply: r.querySelector(".reply").textContent,
		baseline: r.querySelector(".baseline").textContent,
		side: String(r.querySelector(".baseline").getBoundingClientRect().left > r.querySelector(".reply").getBoundingClientRect().right)}))`))
	if strings.Join(names, ",") != "greets back,wants a clue" {
		t.Errorf("conversations visible: %v", names)
	}
	if len(failed) != 1 || !strings.Contains(failed[0], `contains: "clock"`) || !strings.Contains(failed[0], `does not contain "clock"`) {
		t.Errorf("failures marked: %q", failed)
	}
	if len(rows) != 2 || rows[0]["reply"] != "You said: hello" || rows[0]["baseline"] != "Hi there, explorer!" || rows[0]["side"] != "true" ||
		rows[1]["baseline"] != "Look under the clock." {
		t.Errorf("replies beside baselines: %v", rows)
	}
}

func TestEvalRepeatReportsPassRates(t *testing.T) {
	model := providertest.NewOpenAI(t, providertest.Script(func(n int) providertest.Answer {
		if n%2 == 0 {
			return providertest.Completion("Look for a clue by the clock.")
		}
		return providertest.Completion("No idea.")
	}))
	cfg := evalConfig(t, model, "")
	dir := t.TempDir()
	body := `conversations:
  - name: hint
    steps:
      - user: "help"
        expect: [{contains: clue}]
`
	strict := writeSuite(t, dir, "strict.yaml", "name: strict\n"+body)
	out, _, code := evalRun(t, "-config", cfg, "-repeat", "4", "-parallel", "1", strict)
	if code != 1 || !strings.Contains(out, "2/4 runs passed") || !strings.Contains(out, "[2/4 runs, need 100%]") {
		t.Errorf("exit %d, want 1 with the pass rate:\n%s", code, out)
	}
	lenient := writeSuite(t, dir, "lenient.yaml", "name: lenient\nmin_pass_rate: 50%\n"+body)
	report := filepath.Join(dir, "r.json")
	out, _, code = evalRun(t, "-config", cfg, "-repeat", "4", "-parallel", "1", "-json", report, lenient)
	if code != 0 {
		t.Errorf("exit %d, want 0 at 50%%:\n%s", code, out)
	}
	if e := readJSON(t, report).Conversations[0].Steps[0].Expect[0]; e.Passes != 2 || e.Runs != 4 || e.Rate != 0.5 {
		t.Errorf("pass rate in the JSON report: %+v", e)
	}
}
