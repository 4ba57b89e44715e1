package fsstore

import (
	"bytes"
	"container/heap"
	"slices"
)

// readDirChunk is how many entries a listing reads from a folder at a time.
const readDirChunk = 512

// scan is one pass over a folder that keeps only the k smallest message
// names greater than after, so memory stays bounded however many files are
// waiting, and the names of up to k foreign entries (to quarantine).
type scan struct {
	names   []string // message names, ascending
	foreign []string // names that are neither messages nor writes in progress
	more    bool     // foreign was cut at k
	total   int      // message names in the folder (after or not)
}

// scanDir streams dir (eachDirent: no allocation per entry), never
// holding the whole listing. Message names for which skip (if not nil)
// reports true are counted in total but not kept.
func scanDir(dir string, k int, after string, skip func(name string) bool) (scan, error) {
	var res scan
	h := &maxHeap{}
	err := eachDirent(dir, func(b []byte, _ direntKind) {
		switch {
		case isMessageName(b):
			res.total++
			// Compared without a copy; only a name the heap keeps is made a string.
			if string(b) <= after || h.Len() >= k && string(b) >= (*h)[0] {
				return
			}
			if name := string(b); skip == nil || !skip(name) {
				h.offer(name, k)
			}
		case bytes.HasSuffix(b, []byte(tmpSuffix)):
		case len(res.foreign) < k:
			res.foreign = append(res.foreign, string(b))
		default:
			res.more = true
		}
	})
	res.names = []string(*h)
	slices.Sort(res.names)
	return res, err
}

// maxHeap holds the k smallest names seen; the largest is at the top so it
// can be replaced by a smaller newcomer.
type maxHeap []string

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(string)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// offer keeps name if it is among the k smallest seen so far.
func (h *maxHeap) offer(name string, k int) {
	switch {
	case h.Len() < k:
		heap.Push(h, name)
	case name < (*h)[0]:
		(*h)[0] = name
		heap.Fix(h, 0)
	}
}
