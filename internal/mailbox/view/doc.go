// Package view holds the read-only views over a mailbox store that the
// command line, the console and the channel share: the directory of agents
// with their computed status (ListAgents, FindByCapability, RoleSummary),
// threads in causal order (Thread), and the requests still owed a reply
// (FindPending). None needs a running channel: each reads a store.Registry
// or a *store.Store.
package view
