package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// checkRegistry parses _registry.json and returns the cards it could read.
func (d *doctorRun) checkRegistry() map[string]envelope.Card {
	path := filepath.Join(d.root, registryFile)
	bad := func(detail string) map[string]envelope.Card {
		d.add(finding{Check: "registry", Severity: severityError, Path: path, Detail: detail})
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // no agent registered yet
	case errors.Is(err, syscall.ELOOP):
		return bad("is a symlink; the store refuses to follow it (remove it)")
	case err != nil:
		return bad(err.Error())
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return bad("not a regular file (remove it)")
	}
	data, err := readCapped(f, maxRegistryBytes)
	if err != nil {
		return bad(err.Error())
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil || entries == nil {
		d.add(d.repairRegistry(path, describeJSON(err)))
		return nil
	}
	cards := map[string]envelope.Card{}
	for _, id := range slices.Sorted(maps.Keys(entries)) {
		var c envelope.Card
		if err := json.Unmarshal(entries[id], &c); err != nil {
			d.add(finding{Check: "registry", Severity: severityError, Agent: id, Path: path,
				Detail: "card unreadable: " + describeJSON(err)})
			continue
		}
		if c.AgentID != id {
			d.add(finding{Check: "registry", Severity: severityWarn, Agent: id, Path: path,
				Detail: fmt.Sprintf("card under key %q says agent_id %q", id, c.AgentID)})
		}
		cards[id] = c
	}
	return cards
}

// describeJSON words a JSON decoding error (nil: a null document).
func describeJSON(err error) string {
	if err == nil {
		return "null instead of an object"
	}
	return err.Error()
}
