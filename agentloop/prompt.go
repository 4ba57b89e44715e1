package agentloop

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/config"
)

// DefaultSystemPrompt opens the system prompt that the loop builds when
// Config.SystemPrompt is empty.
const DefaultSystemPrompt = `# switchboard agent

You are a helpful assistant in a chat application. Answer briefly.`

// BootstrapFiles are the workspace files whose text the built system prompt
// carries, when present and not empty, in this order (as nanobot's).
var BootstrapFiles = []string{"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "IDENTITY.md"}

// maxBootstrapBytes caps the text taken from one bootstrap file.
const maxBootstrapBytes = 64 << 10

// promptSeparator joins the sections of the built system prompt.
const promptSeparator = "\n\n---\n\n"

// systemPrompt returns the system prompt of a request: Config.SystemPrompt
// when set, otherwise the one built from the workspace's bootstrap files
// (read on every turn, so edits apply at once) and the agent's identity.
func (l *Loop) systemPrompt() string {
	if l.cfg.SystemPrompt != "" {
		return l.cfg.SystemPrompt
	}
	parts := []string{DefaultSystemPrompt + "\nYour workspace is " + l.cfg.Workspace + "."}
	for _, name := range BootstrapFiles {
		text, err := readCapped(filepath.Join(l.cfg.Workspace, name))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				l.log.Warn("bootstrap file left out of the system prompt", "file", name, "err", err)
			}
			continue
		}
		if text = strings.TrimSpace(text); text != "" {
			parts = append(parts, "## "+name+"\n\n"+text)
		}
	}
	if id := l.identity(); id != "" {
		parts = append(parts, id)
	}
	return strings.Join(parts, promptSeparator)
}

// readCapped reads at most maxBootstrapBytes of the file at path.
func readCapped(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBootstrapBytes))
	return string(data), err
}

// loadPromptFile sets cfg.SystemPrompt from cfg.SystemPromptFile, if any.
// The workspace must already be expanded.
func loadPromptFile(cfg *Config) error {
	if cfg.SystemPromptFile == "" {
		return nil
	}
	path, err := config.ExpandHome(cfg.SystemPromptFile)
	if err != nil {
		return fmt.Errorf("agent loop: systemPromptFile: %w", err)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cfg.Workspace, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("agent loop: systemPromptFile: %w (create the file or remove the key)", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return fmt.Errorf("agent loop: systemPromptFile: %s is empty: write the prompt into it or remove the key", path)
	}
	cfg.SystemPrompt = string(data)
	return nil
}
