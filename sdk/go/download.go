package depot

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// DownloadOptions are Download's optional settings.
type DownloadOptions struct {
	// OnProgress is called as bytes arrive: done so far (a resumed .part counts) of total.
	OnProgress func(done, total int64)
}

// Download fetches an artifact (from CheckForUpdate) into directory and returns the path of the
// verified file. It streams artifact.DownloadURL with X-License-Key into directory/<file_name>.part,
// resuming a .part already there with Range, checks sha512 and sha256 (whichever the artifact
// carries, both when both), and renames the .part to file_name only when they match; a mismatch
// deletes the .part and is an *UnverifiableError. The name is the artifact's, never a header's: one
// with a path separator, "..", a leading dot or a NUL is refused before a byte is written. More
// bytes than file_size stop the download at once. Timeout applies between bytes; failures that may
// pass are retried (resuming). depot's refusals of a download are not signed (the file's hash is
// what is verified): they come as *RefusedError with the status's code (UNAUTHENTICATED, FORBIDDEN,
// NOT_FOUND).
func (c *Client) Download(ctx context.Context, key string, artifact Artifact, directory string, opts *DownloadOptions) (string, error) {
	var progress func(done, total int64)
	if opts != nil {
		progress = opts.OnProgress
	}
	if err := safeFileName(artifact.FileName); err != nil {
		return "", err
	}
	checks, err := hashChecks(artifact)
	if err != nil {
		return "", err
	}
	source, err := url.Parse(artifact.DownloadURL)
	if err != nil || (source.Scheme != "http" && source.Scheme != "https") || source.Host == "" {
		return "", unverifiable(0, "the artifact's download_url is not an http(s) URL: %q", artifact.DownloadURL)
	}
	if artifact.FileSize < 0 {
		return "", unverifiable(0, "the artifact's file_size is negative")
	}
	if err := os.MkdirAll(directory, 0o755); err != nil {
		return "", err
	}
	final := filepath.Join(directory, artifact.FileName)
	part := final + ".part"
	for attempt := 0; ; attempt++ {
		err := c.fetchPart(ctx, key, artifact, part, progress)
		if err == nil {
			break
		}
		var again *retryable
		if !errors.As(err, &again) {
			return "", err
		}
		if ctx.Err() != nil {
			return "", &UnreachableError{Reason: "the download was cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
		}
		wait := c.backoff(attempt)
		if again.wait > 0 {
			wait = again.wait
		}
		if attempt >= c.retries || wait > c.maxRetryWait {
			return "", &UnreachableError{Reason: again.err.Error(), Status: again.status, Err: again.err}
		}
		if !c.sleep(ctx.Done(), wait) {
			return "", &UnreachableError{Reason: "the download was cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
		}
	}
	if err := checkHashes(part, checks); err != nil {
		os.Remove(part)
		return "", err
	}
	if err := os.Rename(part, final); err != nil {
		return "", err
	}
	return final, nil
}

// retryable is a download failure that another attempt (resuming) may get past.
type retryable struct {
	err    error
	status int
	wait   time.Duration
}

func (r *retryable) Error() string { return r.err.Error() }

// fetchPart brings the .part up to file_size bytes, resuming what is there.
func (c *Client) fetchPart(ctx context.Context, key string, artifact Artifact, part string, progress func(done, total int64)) error {
	file, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return err
	}
	have := info.Size()
	if have > artifact.FileSize {
		if err := file.Truncate(0); err != nil {
			return err
		}
		have = 0
	}
	if have == artifact.FileSize && have > 0 {
		return nil // complete: the hashes decide
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var idle atomic.Bool
	timer := time.AfterFunc(c.timeout, func() { idle.Store(true); cancel() })
	defer timer.Stop()
	failed := func(err error) error {
		if idle.Load() {
			err = fmt.Errorf("no bytes for %s: %w", c.timeout, err)
		}
		return &retryable{err: err}
	}

	r, err := http.NewRequestWithContext(ctx, http.MethodGet, artifact.DownloadURL, nil)
	if err != nil {
		return err
	}
	r.Header.Set("User-Agent", c.userAgent)
	if key != "" {
		r.Header.Set("X-License-Key", key)
	}
	if have > 0 {
		r.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	response, err := c.http.Do(r)
	if err != nil {
		return failed(err)
	}
	defer response.Body.Close()
	switch status := response.StatusCode; {
	case status == http.StatusPartialContent && have > 0:
		if start, ok := rangeStart(response.Header.Get("Content-Range")); !ok || start != have {
			file.Truncate(0)
			return &retryable{err: fmt.Errorf("the server resumed at another byte (%q)", response.Header.Get("Content-Range"))}
		}
	case status == http.StatusOK:
		if err := file.Truncate(0); err != nil {
			return err
		}
		have = 0
	case status == http.StatusRequestedRangeNotSatisfiable:
		file.Truncate(0)
		return &retryable{err: errors.New("the server could not resume the .part (416)"), status: status}
	case status == http.StatusTooManyRequests || status == http.StatusBadGateway ||
		status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout:
		after, _ := c.retryAfter(response.Header)
		return &retryable{err: fmt.Errorf("%s answered HTTP %d", hostOf(artifact), status), status: status, wait: after}
	case status >= 500:
		return &UnreachableError{Reason: fmt.Sprintf("%s answered HTTP %d", hostOf(artifact), status), Status: status}
	default:
		return downloadRefusal(response)
	}
	if _, err := file.Seek(have, io.SeekStart); err != nil {
		return err
	}
	done := have
	buffer := make([]byte, 64<<10)
	for {
		n, readErr := response.Body.Read(buffer)
		if n > 0 {
			timer.Reset(c.timeout)
			if done+int64(n) > artifact.FileSize {
				file.Close()
				os.Remove(part)
				return unverifiable(response.StatusCode, "the download is larger than its file_size (%d bytes)", artifact.FileSize)
			}
			if _, err := file.Write(buffer[:n]); err != nil {
				return err
			}
			done += int64(n)
			if progress != nil {
				progress(done, artifact.FileSize)
			}
		}
		if readErr == io.EOF {
			break
		}
		if readErr != nil {
			return failed(readErr)
		}
	}
	if done < artifact.FileSize {
		return &retryable{err: fmt.Errorf("the download ended at %d of %d bytes", done, artifact.FileSize)}
	}
	return file.Sync()
}

func hostOf(artifact Artifact) string {
	if u, err := url.Parse(artifact.DownloadURL); err == nil {
		return u.Scheme + "://" + u.Host
	}
	return "the server"
}

// downloadRefusal is a download's refusal: unsigned, so its code comes from the status.
func downloadRefusal(response *http.Response) error {
	refused := &RefusedError{Code: codeOfStatus(response.StatusCode), Status: response.StatusCode}
	if body, err := readAll(response.Body, 64<<10); err == nil {
		var said refusalBody
		if json.Unmarshal(body, &said) == nil {
			refused.Message = said.Message
		}
	}
	return refused
}

// rangeStart is the first byte of a Content-Range ("bytes 10-99/100").
func rangeStart(value string) (int64, bool) {
	if !strings.HasPrefix(value, "bytes ") {
		return 0, false
	}
	rest := value[len("bytes "):]
	dash := strings.IndexByte(rest, '-')
	if dash <= 0 {
		return 0, false
	}
	start, err := strconv.ParseInt(rest[:dash], 10, 64)
	return start, err == nil
}

// safeFileName refuses a name that could land outside the directory or hide in it (":" is a
// drive or a stream on Windows; nothing depot names needs one, nor a control character).
func safeFileName(name string) error {
	bad := name == "" || strings.ContainsAny(name, "/\\:") || strings.Contains(name, "..") ||
		strings.HasPrefix(name, ".") || filepath.Base(name) != name ||
		strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
	if bad {
		return unverifiable(0, "the artifact's file_name %q is not a plain file name", name)
	}
	return nil
}

type hashCheck struct {
	name     string
	hash     hash.Hash
	expected []byte
}

// hashChecks are the artifact's hashes to check: sha512 (base64) and sha256 (hex), at least one.
func hashChecks(artifact Artifact) ([]hashCheck, error) {
	var checks []hashCheck
	if artifact.SHA512 != "" {
		expected, err := base64.StdEncoding.DecodeString(artifact.SHA512)
		if err != nil || len(expected) != sha512.Size {
			return nil, unverifiable(0, "the artifact's sha512 is not base64 of 64 bytes")
		}
		checks = append(checks, hashCheck{"sha512", sha512.New(), expected})
	}
	if artifact.SHA256 != "" {
		expected, err := hex.DecodeString(artifact.SHA256)
		if err != nil || len(expected) != sha256.Size {
			return nil, unverifiable(0, "the artifact's sha256 is not 64 hex digits")
		}
		checks = append(checks, hashCheck{"sha256", sha256.New(), expected})
	}
	if len(checks) == 0 {
		return nil, unverifiable(0, "the artifact has no sha512 or sha256 to check the file against")
	}
	return checks, nil
}

func checkHashes(path string, checks []hashCheck) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	writers := make([]io.Writer, len(checks))
	for i, check := range checks {
		writers[i] = check.hash
	}
	if _, err := io.Copy(io.MultiWriter(writers...), file); err != nil {
		return err
	}
	for _, check := range checks {
		if subtle.ConstantTimeCompare(check.hash.Sum(nil), check.expected) != 1 {
			return unverifiable(0, "the downloaded file does not match its %s", check.name)
		}
	}
	return nil
}
