package a2a

import (
	"fmt"
	"maps"
	"slices"
)

// Summary says, one line each, where the started gateway serves each agent
// and which A2A agents it connects, as `switchboard a2a serve` prints it.
func (g *Gateway) Summary() []string {
	var lines []string
	if _, url := g.Address(); url != "" {
		for _, id := range g.cfg.Serve {
			if id == "*" {
				lines = append(lines, fmt.Sprintf("serving A2A: every registered agent at %s/agents/<id>", url))
				continue
			}
			lines = append(lines, fmt.Sprintf("serving A2A: %s at %s/agents/%s", id, url, id))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(g.cfg.Connect)) {
		lines = append(lines, fmt.Sprintf("connected A2A agent: %s is %s", name, g.cfg.Connect[name].URL))
	}
	return lines
}
