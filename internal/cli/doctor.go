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
	Check    string `json:"check"`    // one of checkOrder
	Severity string `json:"severity"` // ok, warn or error
	Agent    string `json:"agent"`    // the agent concerned, "" for the tree
	Path     string `json:"path"`     // the file or folder concerned
	Detail   string `json:"detail"`   // what is wrong (or right), and what to do
	Fixable  bool   `json:"fixable"`  // --fix repairs this problem
	Fixed    bool   `json:"fixed"`    // --fix repaired it
}

func (a *app) doctorCommand() *cobra.Command {
	var fix, jsonOut bool
	cmd := &cobra.Command{
		Use:   "doctor [--fix] [--json]",
		Short: "Check the mailbox tree (and repair what is safe to repair)",
		Long: `Doctor checks the mailbox tree without opening it as a store, so it also
works on a tree the store refuses:

  root           the root is a folder of mode 0700 owned by you;
                 --fix makes it private (chmod go-rwx)
  permissions    files and folders that group or others can read or write
                 (--fix makes them private), or that another user owns
  foreign        symlinks, special files and hard-linked files in the
                 tree (--fix never changes a hard-linked file)
  registry       _registry.json parses and holds cards; copies of a
                 corrupt registry (_registry.json.corrupt-*): --fix
                 removes all but the newest
  staging        orphan staging files older than a minute (tmp/, nanobot's
                 *.tmp in inbox/, the registry's *.tmp); --fix deletes them
  rejected       files quarantined in rejected/, with their reasons
  inbox          files in inbox/ that are not readable messages for the agent
  offline_agent  agents offline (by heartbeat) with messages waiting
  orphan_inbox   messages for an agent gone longer than
                 channels.mailbox.orphanAfter; --fix moves them to
                 <agent>/archive/orphan/
  stuck_claim    messages claimed by an agent that is not running, or held
                 longer than channels.mailbox.taskTimeout
  overdue_reply  requests whose reply is overdue (see pending)

Each finding has a severity: ok, warn or error. --fix repairs only what is
safe (deleting orphan staging files, removing access of group and others)
and reports the rest with what to do. The exit status is 1 when an error
remains, else 0.

Doctor works on the filesystem store only: with channels.mailbox.backend
set to another store it fails, unless --root names a mailbox folder.`,
		Example: `  switchboard doctor
  switchboard doctor --fix --json | jq 'select(.severity != "ok")'`,
		Args:              exactArgs(),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(_ *cobra.Command, _ []string) error {
			return a.doctor(fix, jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "repair what is safe: delete orphan staging files, make the tree private, archive orphan inboxes")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per finding")
	return cmd
}

func (a *app) doctor(fix, jsonOut bool) error {
	s, err := a.settings()
	if err != nil {
		return err
	}
	if err := a.fsOnly("doctor"); err != nil {
		return err
	}
	d := doctorRun{
		root:         s.mailbox.MailboxesRoot,
		fix:          fix,
		now:          time.Now(),
		offlineAfter: seconds(s.mailbox.OfflineAfter),
		maxBytes:     s.mailbox.MaxMessageBytes,
		conv: doctorConv{orphanAfter: seconds(s.mailbox.OrphanAfter),
			replyTimeout: seconds(s.mailbox.ReplyTimeout), stuckAfter: seconds(s.mailbox.TaskTimeout)},
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
	} else if _, err := fmt.Fprintln(a.env.Stdout, doctorSummary(findings, fix)); err != nil {
		return err
	}
	if errorsLeft > 0 {
		return fmt.Errorf("doctor: %d error(s) in %s", errorsLeft, d.root)
	}
	return nil
}

func (a *app) printFindings(root string, findings []finding) error {
	p := newPalette(a.env.Stdout, a.env.Environ)
	w := a.table()
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

// doctorSummary is the last line of doctor's table: how many problems,
// how many --fix repaired or would repair, how many need a person.
func doctorSummary(findings []finding, fix bool) string {
	problems, fixed, fixable := 0, 0, 0
	for _, f := range findings {
		if f.Severity == severityOK {
			continue
		}
		problems++
		if f.Fixed {
			fixed++
		}
		if f.Fixable {
			fixable++
		}
	}
	switch {
	case problems == 0:
		return "no problems found"
	case fix:
		return fmt.Sprintf("%d problem(s): %d fixed, %d left to repair by hand (see DETAIL)", problems, fixed, problems-fixed)
	case fixable > 0:
		return fmt.Sprintf("%d problem(s); switchboard doctor --fix repairs %d of them, see DETAIL for the rest", problems, fixable)
	}
	return fmt.Sprintf("%d problem(s); see DETAIL for what to do", problems)
}
