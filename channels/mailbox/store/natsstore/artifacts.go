package natsstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// The artifacts live in a JetStream object store (ArtifactsBucket,
// "mailbox-artifacts"), one object per artifact named by its digest, with
// the name and type it was first stored with in the object's metadata.
// Every machine on the server reads what any stored. The object store
// cuts an object into chunks of 128 KiB; a put sends them as it reads
// them, and a read pulls a few at a time (readAhead), so neither holds a
// whole artifact in memory. The bucket is made on the first put.

var _ driver.Artifacts = (*Store)(nil)

// readAhead is how many chunks a reader of an artifact asks the server
// for at a time.
const readAhead = 4

// The metadata keys of an artifact's object.
const (
	metaName = "name"
	metaType = "mime_type"
)

// objectStore is the artifacts' object store, opened (or made) on first
// use.
type objectStore struct {
	mu     sync.Mutex
	obs    jetstream.ObjectStore
	stream jetstream.Stream // the object store's stream, whose chunks a reader pulls
}

// errNoBucket is returned by artifactBucket when the object store does not
// exist and was not to be made.
var errNoBucket = errors.New("no artifact store yet")

// artifactBucket returns the object store and its stream, making the store
// when create is set (and Options.NoCreate is not).
func (s *Store) artifactBucket(ctx context.Context, create bool) (jetstream.ObjectStore, jetstream.Stream, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, nil, err
	}
	o := &s.objects
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.obs != nil {
		return o.obs, o.stream, nil
	}
	bucket := s.opts.ArtifactsBucket
	obs, err := s.js.ObjectStore(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		if !create || s.opts.NoCreate {
			return nil, nil, errNoBucket
		}
		obs, err = s.js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: bucket,
			Description: "switchboard artifacts, named by their sha256", Storage: jetstream.FileStorage,
			Replicas: s.opts.Replicas})
		if errors.Is(err, jetstream.ErrBucketExists) {
			obs, err = s.js.ObjectStore(ctx, bucket)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("artifact store %s: %w", bucket, err)
	}
	stream, err := s.js.Stream(ctx, "OBJ_"+bucket)
	if err != nil {
		return nil, nil, fmt.Errorf("artifact store %s: %w", bucket, err)
	}
	o.obs, o.stream = obs, stream
	return obs, stream, nil
}

// PutArtifact implements driver.Artifacts. The bytes go into an object
// named by their digest as they are read; should they hash to another
// digest, the object is deleted again.
func (s *Store) PutArtifact(ctx context.Context, info driver.ArtifactInfo, r io.Reader) (driver.ArtifactInfo, error) {
	if err := envelope.CheckDigest(info.Digest); err != nil {
		return driver.ArtifactInfo{}, err
	}
	obs, _, err := s.artifactBucket(ctx, true)
	if err != nil {
		return driver.ArtifactInfo{}, err
	}
	if got, err := obs.GetInfo(ctx, info.Digest); err == nil && !got.Deleted && int64(got.Size) == info.Size {
		// There already: store its description again, which renews its time.
		if err := obs.UpdateMeta(ctx, info.Digest, got.ObjectMeta); err != nil {
			return driver.ArtifactInfo{}, fmt.Errorf("store artifact %s: %w", info.Digest, err)
		}
		return s.artifactOf(ctx, obs, info.Digest)
	}
	h := sha256.New()
	counted := &countingReader{r: io.TeeReader(r, h)}
	meta := jetstream.ObjectMeta{Name: info.Digest, Metadata: map[string]string{}}
	if info.Name != "" {
		meta.Metadata[metaName] = info.Name
	}
	if info.MimeType != "" {
		meta.Metadata[metaType] = info.MimeType
	}
	if _, err := obs.Put(ctx, meta, counted); err != nil {
		return driver.ArtifactInfo{}, fmt.Errorf("store artifact %s: %w", info.Digest, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != info.Digest || counted.n != info.Size {
		if err := obs.Delete(context.WithoutCancel(ctx), info.Digest); err != nil {
			s.opts.Logger.Warn("corrupt artifact not deleted", "artifact", info.Digest, "err", err)
		}
		return driver.ArtifactInfo{}, fmt.Errorf("store artifact %s: %w: got %d bytes of sha256 %s, want %d bytes",
			info.Digest, driver.ErrArtifactCorrupt, counted.n, got, info.Size)
	}
	return s.artifactOf(ctx, obs, info.Digest)
}

// artifactOf reads what the object store says of an artifact.
func (s *Store) artifactOf(ctx context.Context, obs jetstream.ObjectStore, digest string) (driver.ArtifactInfo, error) {
	got, err := obs.GetInfo(ctx, digest)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return driver.ArtifactInfo{}, fmt.Errorf("artifact %s: %w", digest, driver.ErrNoArtifact)
	}
	if err != nil {
		return driver.ArtifactInfo{}, fmt.Errorf("artifact %s: %w", digest, err)
	}
	return infoOf(got), nil
}

// infoOf is an object's description as an artifact's.
func infoOf(o *jetstream.ObjectInfo) driver.ArtifactInfo {
	return driver.ArtifactInfo{Digest: o.Name, Size: int64(o.Size), Name: o.Metadata[metaName],
		MimeType: o.Metadata[metaType], Stored: o.ModTime}
}

// OpenArtifact implements driver.Artifacts: a reader that pulls the
// object's chunks readAhead at a time, in order.
func (s *Store) OpenArtifact(ctx context.Context, digest string) (io.ReadCloser, driver.ArtifactInfo, error) {
	if err := envelope.CheckDigest(digest); err != nil {
		return nil, driver.ArtifactInfo{}, err
	}
	obs, stream, err := s.artifactBucket(ctx, false)
	if errors.Is(err, errNoBucket) {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("artifact %s: %w", digest, driver.ErrNoArtifact)
	}
	if err != nil {
		return nil, driver.ArtifactInfo{}, err
	}
	o, err := obs.GetInfo(ctx, digest)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("artifact %s: %w", digest, driver.ErrNoArtifact)
	}
	if err != nil {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("open artifact %s: %w", digest, err)
	}
	info := infoOf(o)
	if o.Size == 0 {
		return io.NopCloser(eofReader{}), info, nil
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{fmt.Sprintf("$O.%s.C.%s", s.opts.ArtifactsBucket, o.NUID)}})
	if err != nil {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("open artifact %s: %w", digest, err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(readAhead))
	if err != nil {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("open artifact %s: %w", digest, err)
	}
	return &chunkReader{it: it, left: int64(o.Size), digest: digest}, info, nil
}

// chunkReader reads an object's bytes from its chunks, in order, until
// it has the object's size.
type chunkReader struct {
	it     jetstream.MessagesContext
	left   int64  // bytes not yet read
	chunk  []byte // what is left of the current chunk
	digest string
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.chunk) == 0 {
		if c.left <= 0 {
			return 0, io.EOF
		}
		m, err := c.it.Next()
		if err != nil {
			return 0, fmt.Errorf("read artifact %s: %w", c.digest, err)
		}
		c.chunk = m.Data()
		if int64(len(c.chunk)) > c.left {
			return 0, fmt.Errorf("read artifact %s: %w: more bytes than its size", c.digest, driver.ErrArtifactCorrupt)
		}
	}
	n := copy(p, c.chunk)
	c.chunk = c.chunk[n:]
	c.left -= int64(n)
	return n, nil
}

func (c *chunkReader) Close() error {
	c.it.Stop()
	return nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// ListArtifacts implements driver.Artifacts.
func (s *Store) ListArtifacts(ctx context.Context, fn func(driver.ArtifactInfo) bool) error {
	obs, _, err := s.artifactBucket(ctx, false)
	if errors.Is(err, errNoBucket) {
		return nil
	}
	if err != nil {
		return err
	}
	list, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list artifacts: %w", err)
	}
	for _, o := range list {
		if envelope.CheckDigest(o.Name) != nil || o.Deleted {
			continue
		}
		if !fn(infoOf(o)) {
			return nil
		}
	}
	return nil
}

// DeleteArtifact implements driver.Artifacts.
func (s *Store) DeleteArtifact(ctx context.Context, digest string, notAfter time.Time) (bool, error) {
	if err := envelope.CheckDigest(digest); err != nil {
		return false, err
	}
	obs, _, err := s.artifactBucket(ctx, false)
	if errors.Is(err, errNoBucket) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	o, err := obs.GetInfo(ctx, digest)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete artifact %s: %w", digest, err)
	}
	if o.ModTime.After(notAfter) {
		return false, nil
	}
	if err := obs.Delete(ctx, digest); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return false, fmt.Errorf("delete artifact %s: %w", digest, err)
	}
	return true, nil
}

// countingReader counts what it reads.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
