package channels

// SetCompactAfter changes the number of lines that makes j compact
// itself, so that a test sees compaction without writing thousands.
func (j *Journal) SetCompactAfter(n int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.compactAfter = n
}
