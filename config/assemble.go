package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
)

// assemble is Load once the file is read: it merges the environment over
// fileTree, decodes the sections this package knows, keeps the channel
// sections raw and records what became of each key in Config.Report.
func assemble(path string, found bool, fileTree map[string]any, fileProblems []*KeyError, opts LoadOptions) (*Config, error) {
	var p problems
	p.list = append(p.list, fileProblems...)
	fileTree = normaliseMap(fileTree, "", &p)
	envTree, origin := envTree(opts.Environ, &p)
	p.env = origin

	k := koanf.New(".")
	for _, tree := range []map[string]any{fileTree, envTree} {
		if err := k.Load(confmap.Provider(tree, ""), nil); err != nil {
			return nil, fmt.Errorf("config: merge: %w", err)
		}
	}
	raw := k.Raw()

	cfg := Default()
	cfg.Report = &Report{}
	if found {
		cfg.Path = path
	}
	channels, hasChannels := raw["channels"]
	delete(raw, "channels")
	classify("", raw, reflect.TypeOf(cfg), cfg.Report, &p) // before the defaults are filled in
	providerDefaults(raw)
	if err := decodeValues(raw, "", cfg, &p); err != nil {
		return nil, err
	}
	if hasChannels {
		cfg.Channels = sections(channels, origin, cfg.Report, &p)
	}
	cfg.validate(&p)

	fatal := p.list[:0:0]
	for _, e := range p.list {
		if lenient(opts.Lenient, e.Path) {
			cfg.Report.invalid([]*KeyError{e})
		} else {
			fatal = append(fatal, e)
		}
	}
	p.list = fatal
	if err := p.err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// lenient reports whether a problem at path falls in one of the sections.
func lenient(sections []string, path string) bool {
	for _, s := range sections {
		if s == "*" || path == s || strings.HasPrefix(path, s+".") || strings.HasPrefix(path, s+"[") {
			return true
		}
	}
	return false
}

// sections turns the raw "channels" value into one Section per channel.
// nanobot's keys beside the channel sections (sendProgress) are recorded
// as ignored; any other key that does not hold an object is a problem (an
// unknown key when it is close to one of nanobot's).
func sections(v any, origin map[string]string, r *Report, p *problems) map[string]Section {
	out := map[string]Section{}
	m, ok := v.(map[string]any)
	if !ok {
		p.invalid("channels", "want an object, got %s", show(v))
		return out
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		path := "channels." + name
		if nanobotChannelKey(name) {
			r.add(Entry{Path: path, Status: Ignored, Reason: ReasonNanobotKey})
			continue
		}
		raw, ok := m[name].(map[string]any)
		if !ok {
			if _, typo := closest(name, nanobotChannelKeys); typo {
				p.unknown(path, name, nanobotChannelKeys)
			} else {
				p.invalid(path, "want an object, got %s", show(m[name]))
			}
			continue
		}
		out[name] = Section{Path: path, Raw: raw, env: origin, report: r}
	}
	return out
}
