package agentloop

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/config"
)

// This file tells the person of delegated work under way without asking
// the model: a bus.KindNotice (the agent a task went to accepted it,
// works on it, has not taken it up), and the end of a turn whose tool
// calls all concluded (agent.Turn.Conclude: the work was handed over).
// Each is worded from a template of the language the agent speaks,
// recorded in the conversation as the agent's own words, and sent. The
// model reads them with the rest of the conversation when the result
// comes back, and answers that once.

// NoticeConfig says how notices are told (Config.Notices).
type NoticeConfig struct {
	// Mode is config.NoticesTemplate (the default: from the templates,
	// without a model turn) or config.NoticesModel (a notice is a chat
	// message the model answers, and a delegation does not end the turn).
	Mode string
	// Language picks the template set: config.LanguageAuto (the default:
	// see language), config.LanguageEnglish or config.LanguageChinese.
	Language string
	// Templates replace the set's template of an event (one of
	// config.NoticeEvents): see config.NoticeTemplate.
	Templates map[string]string
}

// defaultTemplates returns the built-in templates of lang, by event (see
// config.NoticeTemplate).
func defaultTemplates(lang string) map[string]string {
	if lang == config.LanguageChinese {
		return map[string]string{
			"delegated": "我已请 {agent} 处理：{task}（任务 {task_id}），完成后告诉你。",
			"accepted":  "{agent} 已接受任务，正在处理。",
			"working":   "{agent} 正在处理[：{text}|。]",
			"pending":   "任务 {task_id}：{agent} 尚未接手[（{reason}）]，它会一直等到 {agent} 接手。",
			"update":    "{agent}：任务 {task_id} 状态为 {event}[：{text}]",
		}
	}
	return map[string]string{
		"delegated": "I asked {agent} to {task} (task {task_id}). I'll tell you when it's done.",
		"accepted":  "{agent} accepted the task and is working on it.",
		"working":   "{agent} is working on it[: {text}|.]",
		"pending":   "task {task_id}: [{reason}; ][{text}|it waits until {agent} takes it up]",
		"update":    "{agent}: task {task_id} is {event}[: {text}]",
	}
}

// notices holds the parsed templates of both languages, with the
// configured replacements.
type notices struct {
	cfg NoticeConfig
	set map[string]map[string]config.NoticeTemplate // language → event → template
}

// newNotices parses the templates; a replacement that does not parse, or
// names no event, is an error that names it.
func newNotices(cfg NoticeConfig) (*notices, error) {
	n := &notices{cfg: cfg, set: map[string]map[string]config.NoticeTemplate{}}
	for _, event := range slices.Sorted(maps.Keys(cfg.Templates)) {
		if !slices.Contains(config.NoticeEvents, event) {
			return nil, fmt.Errorf("agent loop: notices.templates.%s: not an event a notice is told for (want one of %q)",
				event, config.NoticeEvents)
		}
	}
	for _, lang := range []string{config.LanguageEnglish, config.LanguageChinese} {
		n.set[lang] = map[string]config.NoticeTemplate{}
		for event, text := range defaultTemplates(lang) {
			if own, ok := cfg.Templates[event]; ok {
				text = own
			}
			t, err := config.ParseNoticeTemplate(text)
			if err != nil {
				return nil, fmt.Errorf("agent loop: notices.templates.%s: %w", event, err)
			}
			n.set[lang][event] = t
		}
	}
	return n, nil
}

// templated reports whether notices are told from the templates.
func (n *notices) templated() bool { return n.cfg.Mode != config.NoticesModel }

// render words notice in the language lang.
func (n *notices) render(lang string, notice agent.Notice) string {
	event := notice.Event
	if !slices.Contains(config.NoticeEvents, event) {
		event = "update"
	}
	return n.set[lang][event].Render(map[string]string{"agent": notice.Agent, "task_id": notice.TaskID,
		"task": notice.Task, "text": notice.Text, "reason": notice.Reason, "event": notice.Event})
}

// noticeOf is the notice a KindNotice message carries: its Note's
// (ok false when it has none, or one that is no task update: its Content
// is then told as it is).
func noticeOf(in bus.InboundMessage) (agent.Notice, bool) {
	n := in.Note
	if n == nil || n.Type != bus.NoteTaskUpdate || n.State == "" {
		return agent.Notice{}, false
	}
	return agent.Notice{Event: n.State, Agent: n.From, TaskID: n.TaskID, Text: n.Text, Reason: n.Reason}, true
}

// language is the language notices are told in: the configured one, or
// for config.LanguageAuto Chinese when the operator's prompt (the system
// prompt given whole, or else the workspace's bootstrap files) asks for
// Chinese ("中文", "汉语", "简体", "in Chinese") or is written mostly in
// it (a third of its letters Han characters), English otherwise.
func (l *Loop) language() string {
	switch l.cfg.Notices.Language {
	case config.LanguageEnglish, config.LanguageChinese:
		return l.cfg.Notices.Language
	}
	if asksForChinese(l.operatorPrompt()) {
		return config.LanguageChinese
	}
	return config.LanguageEnglish
}

// operatorPrompt is the part of the system prompt the operator wrote:
// Config.SystemPrompt, or the workspace's bootstrap files.
func (l *Loop) operatorPrompt() string {
	if l.cfg.SystemPrompt != "" {
		return l.cfg.SystemPrompt
	}
	var b strings.Builder
	for _, name := range BootstrapFiles {
		text, err := readCapped(filepath.Join(l.cfg.Workspace, name))
		if err != nil {
			continue // missing, or unreadable: systemPrompt says so
		}
		b.WriteString(text)
		b.WriteString("\n")
	}
	return b.String()
}

// asksForChinese reports whether prompt asks for Chinese or is written
// mostly in it.
func asksForChinese(prompt string) bool {
	lower := strings.ToLower(prompt)
	for _, cue := range []string{"中文", "汉语", "简体", "in chinese"} {
		if strings.Contains(lower, cue) {
			return true
		}
	}
	han, letters := 0, 0
	for _, r := range prompt {
		if unicode.IsLetter(r) {
			letters++
			if unicode.Is(unicode.Han, r) {
				han++
			}
		}
	}
	return letters > 0 && han*3 >= letters
}

// tell tells the person notice message in (a bus.KindNotice) without a
// model turn: it records in, and the words told, in the conversation h,
// and sends them to in's chat.
func (l *Loop) tell(ctx context.Context, in bus.InboundMessage, h *history, user agent.Message, key string) {
	text := in.Content
	if n, ok := noticeOf(in); ok {
		text = l.notices.render(l.language(), n)
	}
	said := agent.Message{Role: agent.RoleAssistant, Content: text}
	if err := l.history.append(h, []agent.Message{user, said}); err != nil {
		l.log.Error("history not saved; the notice comes back on restart", logAttrs(in, "session", key, "err", err)...)
		return
	}
	l.log.Info("notice", logAttrs(in, "session", key, "from", in.SenderID)...)
	l.send(ctx, in, answer{text: text, md: maps.Clone(in.Metadata)}, key)
}

// concluded returns what ends a turn whose step asked for calls, when
// every call concluded (agent.Turn.Conclude) and notices are told from
// the templates: the model's own words of the step, if any, then the
// notice of each call. ok is false when the model must be asked again.
func (l *Loop) concluded(turn *agent.Turn, content string, calls []agent.ToolCall) (string, bool) {
	if !l.notices.templated() || len(calls) == 0 {
		return "", false
	}
	told := make([]agent.Notice, 0, len(calls))
	for _, c := range calls {
		n, ok := turn.Conclusion(c.ID)
		if !ok {
			return "", false
		}
		told = append(told, n)
	}
	lang := l.language()
	var lines []string
	if s := strings.TrimSpace(content); s != "" {
		lines = append(lines, s)
	}
	for _, n := range told {
		lines = append(lines, l.notices.render(lang, n))
	}
	return strings.Join(lines, "\n"), true
}
