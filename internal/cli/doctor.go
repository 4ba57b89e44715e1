package cli

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
)

// Severities of a doctor finding.
const (
	severityOK    = "ok"
	severityWarn  = "warn"
	severityError = "error"
)

// finding is one result of doctor, as doctor --json prints it.
type finding struct {
	Check    string `json:"check"`    // root, registry, staging, rejected, inbox, offline_agent
	Severity string `json:"severity"` // ok, warn or error
	Agent    string `json:"agent"`    // the agent concerned, "" for the tree
	Path     string `json:"path"`     // the file or folder concerned
	Detail   string `json:"detail"`   // what is wrong (or right), and what to do
	Fixed    bool   `json:"fixed"`    // --fix repaired it
}

func (a *app) doctorCommand() *cobra.Command {
	var fix, jsonOut bool
	cmd := &cobra.Command{
		Use:   "doctor [--fix] [--json]",
		Short: "Check the mailbox tree (and repair what is safe to repair)",
		Long: `Doctor checks the mailbox tree without opening it as a store, so it also
works on a tree the store refuses:

  root           the root is a folder of mode 0700 owned by you
  registry       _registry.json parses and holds cards
  staging        orphan staging files (tmp/, and nanobot's *.tmp in inbox/)
                 older than a minute; --fix deletes them
  rejected       files quarantined in rejected/, with their reasons
  inbox          files in inbox/ that are not readable messages for the agent
  offline_agent  agents offline (by heartbeat) with messages waiting

Each finding has a severity: ok, warn or error. The exit status is 1 when
an error remains, else 0.`,
		Example: `  switchboard doctor
  switchboard doctor --fix --json | jq 'select(.severity != "ok")'`,
		Args: exactArgs(),
		RunE: a.action(func(_ *cobra.Command, _ []string) error {
			return a.doctor(fix, jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "delete orphan staging files")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per finding")
	return cmd
}

func (a *app) doctor(fix, jsonOut bool) error {
	s, err := a.settings()
	if err != nil {
		return err
	}
	d := doctorRun{
		root:         s.mailbox.MailboxesRoot,
		fix:          fix,
		now:          time.Now(),
		offlineAfter: seconds(s.mailbox.OfflineAfter),
		maxBytes:     s.mailbox.MaxMessageBytes,
	}
	findings := d.run()
	errorsLeft := 0
	for _, f := range findings {
		if f.Severity == severityError && !f.Fixed {
			errorsLeft++
		}
	}
	if jsonOut {
		for _, f := range findings {
			if err := writeJSON(a.env.Stdout, f); err != nil {
				return err
			}
		}
	} else if err := a.printFindings(d.root, findings); err != nil {
		return err
	}
	if errorsLeft > 0 {
		return fmt.Errorf("doctor: %d error(s) in %s", errorsLeft, d.root)
	}
	return nil
}

func (a *app) printFindings(root string, findings []finding) error {
	p := newPalette(a.env.Stdout, a.env.Environ)
	w := table(a.env.Stdout)
	row(w, p.paint(colorDefault, "SEVERITY"), "CHECK", "AGENT", "PATH", "DETAIL")
	for _, f := range findings {
		color := map[string]string{severityOK: colorGreen, severityWarn: colorYellow, severityError: colorRed}[f.Severity]
		detail := f.Detail
		if f.Fixed {
			detail += " (fixed)"
		}
		path := tilde(f.Path)
		if rel, err := filepath.Rel(root, f.Path); err == nil && rel != "." && filepath.IsLocal(rel) {
			path = rel // under the root: short
		}
		row(w, p.paint(color, f.Severity), f.Check, orDash(f.Agent), orDash(path), detail)
	}
	return w.Flush()
}
