package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// This file holds the tools of the file reservations (store.Reservations):
// reserve_files, release_files and file_reservations.

// ReserveArgs are the arguments of reserve_files.
type ReserveArgs struct {
	Paths      []string `json:"paths" jsonschema:"paths or globs of the shared workspace, such as src/parser.go or docs/** (every file under docs)"`
	TTLSeconds float64  `json:"ttl_seconds,omitempty" jsonschema:"how long the reservation lasts, in seconds (default 3600, at most 7 days); reserve again to renew it"`
	Shared     bool     `json:"shared,omitempty" jsonschema:"a shared reservation (others may hold shared ones too); exclusive by default"`
	Reason     string   `json:"reason,omitempty" jsonschema:"what you are doing there, for the others"`
}

// Reserved is what reserve_files, release_files and file_reservations
// tell an MCP client.
type Reserved struct {
	Reservations []store.Reservation `json:"reservations"`
}

// ReserveFiles is the reserve_files tool: it reserves paths or globs of
// the workspace the team shares for a while, all of them or none. An
// exclusive reservation is refused while another agent holds an
// overlapping one, a shared one while another holds an exclusive one:
// the error says who holds what, and until when.
var ReserveFiles = Tool[ReserveArgs]{
	Name: "reserve_files",
	Description: "Reserve files of the shared workspace (paths or globs) before you change them, so that other " +
		"agents know; refused, with who holds them and until when, when another agent reserved them. " +
		"Reservations expire (ttl_seconds); release them with release_files when done.",
	Use: "reserve files of the shared workspace before changing them",
	Run: reserveFiles,
}

func reserveFiles(ctx context.Context, c Caller, in ReserveArgs) (Result, error) {
	if len(in.Paths) == 0 {
		return Result{}, errors.New("paths is empty: name the files or globs to reserve")
	}
	if in.TTLSeconds < 0 {
		return Result{}, errors.New("ttl_seconds must be positive")
	}
	r, err := c.Mailbox.Reservations()
	if err != nil {
		return Result{}, err
	}
	got, err := r.Reserve(ctx, store.ReserveRequest{Agent: c.Mailbox.AgentID(), Patterns: in.Paths,
		TTL: time.Duration(in.TTLSeconds * float64(time.Second)), Shared: in.Shared, Reason: in.Reason, Now: c.now()})
	if err != nil {
		if errors.Is(err, store.ErrReserved) {
			return Result{}, fmt.Errorf("%w; nothing was reserved: wait until then, or work elsewhere", err)
		}
		return Result{}, err
	}
	return Result{Text: "reserved " + describe(got), Data: Reserved{Reservations: got}}, nil
}

// ReleaseArgs are the arguments of release_files.
type ReleaseArgs struct {
	Paths []string `json:"paths,omitempty" jsonschema:"the paths or globs to release, as reserved (default: all of yours)"`
}

// ReleaseFiles is the release_files tool: it ends the caller's
// reservations of paths, or all of them.
var ReleaseFiles = Tool[ReleaseArgs]{
	Name:        "release_files",
	Description: "Release files you reserved with reserve_files (the paths as you reserved them, or all of yours).",
	Use:         "release the files you reserved",
	Run: func(ctx context.Context, c Caller, in ReleaseArgs) (Result, error) {
		r, err := c.Mailbox.Reservations()
		if err != nil {
			return Result{}, err
		}
		ended, err := r.Release(ctx, c.Mailbox.AgentID(), in.Paths, c.now())
		if err != nil {
			return Result{}, err
		}
		if len(ended) == 0 {
			return Result{Text: "you held no such reservation", Data: Reserved{Reservations: ended}}, nil
		}
		return Result{Text: "released " + describe(ended), Data: Reserved{Reservations: ended}}, nil
	},
}

// ListReservationsArgs are the arguments of file_reservations.
type ListReservationsArgs struct {
	Path string `json:"path,omitempty" jsonschema:"only the reservations that cover this path or glob (default: all)"`
}

// FileReservations is the file_reservations tool: who holds which files
// of the shared workspace, until when.
var FileReservations = Tool[ListReservationsArgs]{
	Name:        "file_reservations",
	Description: "List the reservations of the shared workspace in force: who holds which paths, exclusive or shared, until when.",
	Use:         "see who reserved which files of the shared workspace",
	Run: func(ctx context.Context, c Caller, in ListReservationsArgs) (Result, error) {
		r, err := c.Mailbox.Reservations()
		if err != nil {
			return Result{}, err
		}
		list, err := r.List(ctx, in.Path, c.now())
		if err != nil {
			return Result{}, err
		}
		if len(list) == 0 {
			return Result{Text: "no reservations", Data: Reserved{Reservations: list}}, nil
		}
		return Result{Text: describe(list), Data: Reserved{Reservations: list}}, nil
	},
}

// describe says what reservations hold, one after the other.
func describe(rs []store.Reservation) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		kind := "shared"
		if r.Exclusive {
			kind = "exclusive"
		}
		parts[i] = fmt.Sprintf("%s (%s, %s, until %s", r.Pattern, r.Agent, kind, r.Expires.UTC().Format(time.RFC3339))
		if r.Reason != "" {
			parts[i] += ": " + r.Reason
		}
		parts[i] += ")"
	}
	return strings.Join(parts, "; ")
}
