// Package memstore is a mailbox store held in memory, for fast tests of
// code above the mailbox and for single-process use. A Hub is one store;
// each Store opened on it behaves like another process sharing it. It
// keeps every guarantee of the store contract except durability: what it
// holds is gone when the process ends.
//
// Messages are kept encoded, exactly as another backend would hold them,
// and decoded when handed out, so a Hub can also be given input that does
// not decode (InjectRaw) and sets it aside as every backend must.
package memstore
