package depot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fileServer serves content with Range support (http.ServeContent) to requests carrying the key.
type fileServer struct {
	*httptest.Server
	mu      sync.Mutex
	ranges  []string
	content []byte
	// whole answers 200 with every byte, whatever Range asks.
	whole bool
}

func newFileServer(t *testing.T, content []byte) *fileServer {
	s := &fileServer{content: content}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-License-Key") != testKey {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(403)
			_, _ = w.Write([]byte(`{"message":"This license does not hold this product."}`))
			return
		}
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		whole := s.whole
		s.mu.Unlock()
		w.Header().Set("Content-Disposition", `attachment; filename="../../evil.sh"`)
		if whole {
			_, _ = w.Write(s.content)
			return
		}
		http.ServeContent(w, r, "", time.Unix(0, 0), bytes.NewReader(s.content))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *fileServer) rangesAsked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

func artifactOf(server string, name string, content []byte) Artifact {
	s256 := sha256.Sum256(content)
	s512 := sha512.Sum512(content)
	return Artifact{
		ID: 3, FileName: name, FileSize: int64(len(content)), DownloadURL: server + "/api/products/1/versions/2/artifacts/3/download",
		SHA256: hex.EncodeToString(s256[:]), SHA512: base64.StdEncoding.EncodeToString(s512[:]),
	}
}

func downloadClient(t *testing.T) *Client {
	c, err := New(Config{Server: "http://127.0.0.1:1", ProductID: testProduct, JWKS: newSigner(t, testKid).jwks(), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = func(done <-chan struct{}, d time.Duration) bool { return true }
	return c
}

func TestDownloadWritesTheVerifiedFileUnderTheArtifactsName(t *testing.T) {
	content := []byte(strings.Repeat("desk clock 1.1.0 ", 10000))
	server := newFileServer(t, content)
	dir := t.TempDir()
	var last, total int64
	path, err := downloadClient(t).Download(context.Background(), testKey, artifactOf(server.URL, "desk-clock-1.1.0.tar.gz", content), dir,
		&DownloadOptions{OnProgress: func(done, of int64) { last, total = done, of }})
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "desk-clock-1.1.0.tar.gz") {
		t.Fatalf("path %s", path)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
		t.Fatal("the file is not the content")
	}
	if last != int64(len(content)) || total != int64(len(content)) {
		t.Fatalf("progress %d of %d", last, total)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the directory holds %v", entries)
	}
}

func TestDownloadResumesAPart(t *testing.T) {
	content := []byte(strings.Repeat("0123456789", 1000))
	server := newFileServer(t, content)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.tar.gz.part"), content[:4000], 0o644); err != nil {
		t.Fatal(err)
	}
	var first int64 = -1
	path, err := downloadClient(t).Download(context.Background(), testKey, artifactOf(server.URL, "app.tar.gz", content), dir,
		&DownloadOptions{OnProgress: func(done, of int64) {
			if first < 0 {
				first = done
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
		t.Fatal("the resumed file is not the content")
	}
	if ranges := server.rangesAsked(); len(ranges) != 1 || ranges[0] != "bytes=4000-" {
		t.Fatalf("ranges asked %q", ranges)
	}
	if first <= 4000 {
		t.Fatalf("progress started at %d, not past the .part", first)
	}
	if _, err := os.Stat(path + ".part"); !os.IsNotExist(err) {
		t.Fatal("the .part is still there")
	}
}

func TestDownloadStartsOverWhenTheServerSendsEverything(t *testing.T) {
	content := []byte(strings.Repeat("abcdefghij", 100))
	server := newFileServer(t, content)
	server.whole = true
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "app.zip.part"), []byte("stale bytes"), 0o644)
	path, err := downloadClient(t).Download(context.Background(), testKey, artifactOf(server.URL, "app.zip", content), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
		t.Fatal("a 200 to a Range was appended to the .part")
	}
}

func TestADownloadThatDoesNotMatchItsHashIsDeleted(t *testing.T) {
	content := []byte("the real release\n")
	server := newFileServer(t, content)
	for _, which := range []string{"sha256", "sha512"} {
		t.Run(which, func(t *testing.T) {
			dir := t.TempDir()
			artifact := artifactOf(server.URL, "app.tar.gz", content)
			wrong := artifactOf(server.URL, "app.tar.gz", []byte("another release\n"))
			if which == "sha256" {
				artifact.SHA256 = wrong.SHA256
			} else {
				artifact.SHA512 = wrong.SHA512
			}
			_, err := downloadClient(t).Download(context.Background(), testKey, artifact, dir, nil)
			mustUnverifiable(t, err, "does not match its "+which)
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("left behind: %v", entries)
			}
		})
	}
	t.Run("one hash is enough", func(t *testing.T) {
		artifact := artifactOf(server.URL, "app.tar.gz", content)
		artifact.SHA512 = ""
		if _, err := downloadClient(t).Download(context.Background(), testKey, artifact, t.TempDir(), nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("no hash is refused", func(t *testing.T) {
		artifact := artifactOf(server.URL, "app.tar.gz", content)
		artifact.SHA512, artifact.SHA256 = "", ""
		_, err := downloadClient(t).Download(context.Background(), testKey, artifact, t.TempDir(), nil)
		mustUnverifiable(t, err, "no sha512 or sha256")
	})
}

func TestAHostileFileNameIsRefusedBeforeAByteIsWritten(t *testing.T) {
	content := []byte("payload")
	server := newFileServer(t, content)
	for _, name := range []string{"../evil.sh", "sub/app.zip", `sub\app.zip`, "..", ".bashrc", "a\x00b", "", "app..zip", "/etc/passwd",
		"C:evil.exe", "app.exe:stream", "tab\tname", "del\x7fname"} {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "downloads")
			_, err := downloadClient(t).Download(context.Background(), testKey, artifactOf(server.URL, name, content), dir, nil)
			mustUnverifiable(t, err, "not a plain file name")
			if entries, _ := os.ReadDir(parent); len(entries) != 0 {
				t.Fatalf("written: %v", entries)
			}
		})
	}
	if asked := server.rangesAsked(); len(asked) != 0 {
		t.Fatalf("the server was asked %d times", len(asked))
	}
}

func TestADownloadLargerThanItsSizeStopsAtOnce(t *testing.T) {
	content := []byte(strings.Repeat("x", 200000))
	server := newFileServer(t, content)
	artifact := artifactOf(server.URL, "app.bin", content)
	artifact.FileSize = 1000
	dir := t.TempDir()
	_, err := downloadClient(t).Download(context.Background(), testKey, artifact, dir, nil)
	mustUnverifiable(t, err, "larger than its file_size")
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestADownloadRefusalIsRefused(t *testing.T) {
	content := []byte("payload")
	server := newFileServer(t, content)
	_, err := downloadClient(t).Download(context.Background(), "WRONG", artifactOf(server.URL, "app.bin", content), t.TempDir(), nil)
	var refused *RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, ErrForbidden) || refused.Message != "This license does not hold this product." {
		t.Fatalf("got %#v", err)
	}
}

func TestADownloadCutShortIsResumedOnTheNextAttempt(t *testing.T) {
	content := []byte(strings.Repeat("0123456789", 5000))
	var mu sync.Mutex
	var ranges []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		first := len(ranges) == 1
		mu.Unlock()
		if first {
			// Half the file, then the connection drops.
			w.Header().Set("Content-Length", fmt.Sprint(len(content)))
			_, _ = w.Write(content[:20000])
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		http.ServeContent(w, r, "", time.Unix(0, 0), bytes.NewReader(content))
	}))
	defer server.Close()
	path, err := downloadClient(t).Download(context.Background(), testKey, artifactOf(server.URL, "app.bin", content), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
		t.Fatal("the file is not the content")
	}
	if len(ranges) != 2 || ranges[0] != "" || ranges[1] != "bytes=20000-" {
		t.Fatalf("ranges %q", ranges)
	}
}

func TestADownloadRedirectedElsewhereDoesNotTakeTheKey(t *testing.T) {
	content := []byte("bucket bytes")
	var keySeen string
	bucket := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keySeen = r.Header.Get("X-License-Key")
		_, _ = w.Write(content)
	}))
	defer bucket.Close()
	// Another host name for the same machine: "localhost" rather than 127.0.0.1.
	bucketURL := strings.Replace(bucket.URL, "127.0.0.1", "localhost", 1)
	depot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, bucketURL+"/signed", http.StatusFound)
	}))
	defer depot.Close()
	if _, err := downloadClient(t).Download(context.Background(), testKey, artifactOf(depot.URL, "app.bin", content), t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	if keySeen != "" {
		t.Fatalf("the bucket got the license key %q", keySeen)
	}
}
