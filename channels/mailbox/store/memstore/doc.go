// Package memstore is a mailbox store held in memory, for fast tests of
// code above the mailbox and for single-process use. A Hub is one store;
// each Store opened on it behaves like another process sharing it. It
// keeps every guarantee of the store contract except durability: what it
// holds is gone when the process ends.
//
// Messages are kept encoded, exactly as another backend would hold them,
// and decoded when handed out, so a Hub can also be given input that does
// not decode (InjectRaw) and sets it aside as every backend must.
//
// It has every optional ability of package store: Browse (pending, handed
// out, handled and archived messages), an audit log (Record, ReadAudit;
// always on, the last AuditKeep entries), SweepTask and Prune. Handled
// and archived messages are kept until Prune removes them (a running
// mailbox channel prunes by its retention settings); the ids of handled
// messages, which recognise a duplicate, are kept up to 100,000 per inbox.
package memstore
