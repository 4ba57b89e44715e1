package agentloop

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/agent"
)

var toolNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// Tools is a registry of tools by name, in the order they were added. It
// is safe for concurrent use. A nil *Tools is an empty registry.
type Tools struct {
	mu     sync.RWMutex
	order  []string
	byName map[string]agent.Tool
}

// NewTools returns a registry holding tools; it fails like Add.
func NewTools(tools ...agent.Tool) (*Tools, error) {
	t := &Tools{}
	if err := t.Add(tools...); err != nil {
		return nil, err
	}
	return t, nil
}

// Add registers tools. It fails, adding none of them, on a nil tool, a
// name that is not 1 to 64 letters, digits, '_' or '-', a Spec whose name
// differs, or a name already taken.
func (t *Tools) Add(tools ...agent.Tool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	seen := map[string]bool{}
	for _, tool := range tools {
		if tool == nil {
			return errors.New("add tool: nil tool")
		}
		name := tool.Name()
		switch {
		case !toolNamePattern().MatchString(name):
			return fmt.Errorf("add tool %q: name must be 1 to 64 letters, digits, '_' or '-'", name)
		case tool.Spec().Name != name:
			return fmt.Errorf("add tool %q: its Spec is named %q", name, tool.Spec().Name)
		case t.byName[name] != nil || seen[name]:
			return fmt.Errorf("add tool %q: a tool of that name is already registered", name)
		}
		seen[name] = true
	}
	if t.byName == nil {
		t.byName = map[string]agent.Tool{}
	}
	for _, tool := range tools {
		t.byName[tool.Name()] = tool
		t.order = append(t.order, tool.Name())
	}
	return nil
}

// Get returns the tool called name.
func (t *Tools) Get(name string) (agent.Tool, bool) {
	if t == nil {
		return nil, false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	tool, ok := t.byName[name]
	return tool, ok
}

// Names returns the tools' names in the order they were added.
func (t *Tools) Names() []string {
	if t == nil {
		return nil
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	return slices.Clone(t.order)
}

// Specs returns the tools' specs in the order they were added.
func (t *Tools) Specs() []agent.ToolSpec {
	if t == nil {
		return nil
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	specs := make([]agent.ToolSpec, 0, len(t.order))
	for _, name := range t.order {
		specs = append(specs, t.byName[name].Spec())
	}
	return specs
}

// Len returns the number of tools.
func (t *Tools) Len() int {
	if t == nil {
		return 0
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.order)
}
