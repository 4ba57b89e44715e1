package config

import (
	"maps"
	"slices"
)

// validate reports the keys of n out of range; prefix ends in ".".
func (n NoticesConfig) validate(p *problems, prefix string) {
	switch n.Mode {
	case "", NoticesTemplate, NoticesModel:
	default:
		p.invalid(prefix+"mode", "want %q or %q, got %q", NoticesTemplate, NoticesModel, n.Mode)
	}
	switch n.Language {
	case "", LanguageAuto, LanguageEnglish, LanguageChinese:
	default:
		p.invalid(prefix+"language", "want %q, %q or %q, got %q", LanguageAuto, LanguageEnglish, LanguageChinese, n.Language)
	}
	for _, event := range slices.Sorted(maps.Keys(n.Templates)) {
		text, key := n.Templates[event], prefix+"templates."+event
		if !slices.Contains(NoticeEvents, event) {
			p.invalid(key, "not an event a notice is told for: want one of %q", NoticeEvents)
			continue
		}
		if _, err := ParseNoticeTemplate(text); err != nil {
			p.invalid(key, "%v", err)
		}
	}
}
