package channeltest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/botgw/botgw/channels/markup"
)

// CheckParts checks the messages one reply was split into, as the platform
// of dialect d would: none empty, none longer than d.Limit, each valid text
// with its markup complete (tags balanced, code blocks closed, entities
// whole), and no character cut in two between two messages.
func CheckParts(d markup.Dialect, parts []string) error {
	var errs []error
	for i, p := range parts {
		if err := checkPart(d, p); err != nil {
			errs = append(errs, fmt.Errorf("message %d of %d: %w", i+1, len(parts), err))
		}
		if i > 0 && markup.CutsCharacter(parts[i-1], p) {
			errs = append(errs, fmt.Errorf("messages %d and %d cut a character in two", i, i+1))
		}
	}
	return errors.Join(errs...)
}

func checkPart(d markup.Dialect, p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return errors.New("empty")
	case !utf8.ValidString(p):
		return errors.New("invalid UTF-8 (a cut surrogate pair or byte sequence)")
	case d.Limit > 0 && d.Len(p) > d.Limit:
		return fmt.Errorf("%d long, over the limit of %d", d.Len(p), d.Limit)
	}
	switch d.Name {
	case markup.Telegram.Name:
		return checkHTML(p)
	case markup.Slack.Name:
		if err := checkEntities(p); err != nil {
			return err
		}
		return checkFences(p)
	case markup.WhatsApp.Name:
		return checkFences(p)
	}
	return nil
}

var tag = regexp.MustCompile(`<(/?)([a-z]+)[^<>]*>`)

// checkHTML checks Telegram HTML: every tag closed in order, no stray <.
func checkHTML(p string) error {
	var open []string
	for _, m := range tag.FindAllStringSubmatch(p, -1) {
		switch {
		case m[1] == "":
			open = append(open, m[2])
		case len(open) == 0 || open[len(open)-1] != m[2]:
			return fmt.Errorf("</%s> closes nothing open (open: %v)", m[2], open)
		default:
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("tags left open: %v", open)
	}
	if strings.Contains(tag.ReplaceAllString(p, ""), "<") {
		return errors.New("a < that is not a tag")
	}
	return checkEntities(p)
}

// checkEntities checks that every & starts one of the escapes Slack and
// Telegram read.
func checkEntities(p string) error {
	for i := strings.IndexByte(p, '&'); i >= 0; i = next(p, i) {
		rest := p[i:]
		if !strings.HasPrefix(rest, "&amp;") && !strings.HasPrefix(rest, "&lt;") &&
			!strings.HasPrefix(rest, "&gt;") && !strings.HasPrefix(rest, "&quot;") {
			return fmt.Errorf("a bare & at %q", rest[:min(len(rest), 12)])
		}
	}
	return nil
}

func next(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '&')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// checkFences checks that every ``` block a message opens it also closes.
func checkFences(p string) error {
	if strings.Count(p, "```")%2 != 0 {
		return errors.New("a code block left open")
	}
	return nil
}
