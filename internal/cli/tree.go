package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// messageBoxes are the folders of an agent that hold whole messages:
// pending and being handled (claimed: see claimedNames), being handled by
// a receiver from before the claim log, and handled.
var messageBoxes = []string{"inbox", "claimed", "processed"}

// claimedNames returns the names of agent's files in inbox/ that its
// receiver claimed (the folder store's claim log: fsstore.Claims).
func claimedNames(root, agent string) map[string]bool {
	claims, _ := fsstore.Claims(root, agent) // unreadable: checkClaims says so
	names := make(map[string]bool, len(claims))
	for _, c := range claims {
		names[c.Name] = true
	}
	return names
}

// storedMessage is a message file found in the tree.
type storedMessage struct {
	rel string    // path under the root: <agent>/<folder>/<name>
	box store.Box // the folder, or BoxClaimed for a claimed file in inbox/
	msg *envelope.Message
}

// agentDirs lists the root's agent folders: folders (not symlinks) whose
// names are valid agent ids. A missing root has none.
func agentDirs(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && e.Type()&os.ModeSymlink == 0 && envelope.ValidateAgentID(e.Name()) == nil {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

// readTree reads every message in every agent's inbox/, claimed/ and
// processed/ folder; a claimed file in inbox/ is in box "claimed", as the
// store's views have it. Files that cannot be read are skipped (doctor
// reports them).
func readTree(root string, maxBytes int64) ([]storedMessage, error) {
	agents, err := agentDirs(root)
	if err != nil {
		return nil, err
	}
	var out []storedMessage
	for _, agent := range agents {
		claimed := claimedNames(root, agent)
		for _, box := range messageBoxes {
			dir := filepath.Join(root, agent, box)
			ents, err := os.ReadDir(dir)
			if err != nil {
				continue // missing or unreadable folder: nothing to read there
			}
			for _, e := range ents {
				if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), envelope.MessageSuffix) {
					continue
				}
				msg, err := readMessageFile(filepath.Join(dir, e.Name()), maxBytes)
				if err != nil {
					continue
				}
				m := storedMessage{rel: filepath.Join(agent, box, e.Name()), box: store.Box(box), msg: msg}
				if box == "inbox" && claimed[e.Name()] {
					m.box = store.BoxClaimed
				}
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// readMessageFile decodes the message file at path without following a
// symlink, without blocking on a FIFO and without reading more than
// maxBytes.
func readMessageFile(path string, maxBytes int64) (*envelope.Message, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	return envelope.Decode(io.Reader(f), maxBytes)
}
