package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// history matches the phrases of a development diary: releases and
// upgrades that never were, benchmark "stops", commits, paths outside the
// repository. The pages describe the code as it is.
var history = regexp.MustCompile(`(?i)earlier release|previous release|upgrading from|upgrade from|before this (change|release|work)|was added|(first|second|third|fourth|fifth) stop|main at [0-9a-f]{7}|\.\./shared/|other engineers`)

// TestPagesSpeakInThePresent: no page of README.md or docs/ tells the
// project's history (CHANGELOG.md is where releases are told).
func TestPagesSpeakInThePresent(t *testing.T) {
	for name := range pages(t) {
		if name == "CHANGELOG.md" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range history.FindAllIndex(src, -1) {
			t.Errorf("%s: %q reads as project history; describe the code as it is", name, src[max(0, m[0]-40):min(len(src), m[1]+40)])
		}
	}
}
