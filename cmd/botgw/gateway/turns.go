package gateway

import (
	"errors"
	"maps"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/botgw/botgw/convo"
)

// takeChannelTurns removes every channels.<name>.turns entry from the
// document and returns their nodes by channel name.
func takeChannelTurns(root *yaml.Node) map[string]*yaml.Node {
	doc := root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	channels := mapValue(doc, "channels")
	if channels == nil || channels.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(channels.Content); i += 2 {
		section := channels.Content[i+1]
		if section.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(section.Content); j += 2 {
			if section.Content[j].Value == "turns" {
				out[channels.Content[i].Value] = section.Content[j+1]
				section.Content = slices.Delete(section.Content, j, j+2)
				break
			}
		}
	}
	return out
}

// mapValue is the value of key in mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// decodeChannelTurns decodes the taken turns sections strictly, in channel
// order, into cfg.Channels.Turns.
func decodeChannelTurns(turns map[string]*yaml.Node, cfg *Config) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(turns)) {
		b, err := yaml.Marshal(turns[name])
		if err != nil {
			return &SyntaxError{err}
		}
		var t convo.TurnsConfig
		if err := strictDecode(string(b), &t, "channels."+name+".turns"); err != nil {
			errs = append(errs, err)
			continue
		}
		if cfg.Channels.Turns == nil {
			cfg.Channels.Turns = map[string]convo.TurnsConfig{}
		}
		cfg.Channels.Turns[name] = t
	}
	return errors.Join(errs...)
}

// validateTurns checks the turns section and each channel's override.
func (c Config) validateTurns() error {
	errs := []error{c.Turns.Validate("turns")}
	for _, name := range slices.Sorted(maps.Keys(c.Channels.Turns)) {
		errs = append(errs, c.Channels.Turns[name].Validate("channels."+name+".turns"))
	}
	return errors.Join(errs...)
}
