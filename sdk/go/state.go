package depot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// keptAnswer is a verified validation as it came: its status, the signed headers and the body
// bytes, and the nonce sent. Read back, it is verified again (a file in StateDir is not trusted).
type keptAnswer struct {
	Status  int           `json:"status"`
	Headers signedHeaders `json:"headers"`
	Body    []byte        `json:"body"`
	Nonce   string        `json:"nonce"`
}

// stateStore keeps what Status falls back on: the last verified validation and the last license
// file checked out, per key and fingerprint, in memory and (with StateDir) in files of their own.
// Keeping is best effort: a StateDir that cannot be written leaves the memory copy only.
type stateStore struct {
	dir     string
	mu      sync.Mutex
	answers map[string]keptAnswer
	files   map[string]string
}

func newStateStore(dir string) (*stateStore, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("depot: StateDir: %w", err)
		}
	}
	return &stateStore{dir: dir, answers: map[string]keptAnswer{}, files: map[string]string{}}, nil
}

// stateName names what is kept for a key and fingerprint without writing the key in a file name.
func stateName(productID, key, fingerprint string) string {
	sum := sha256.Sum256([]byte("depot-client\x00" + productID + "\x00" + strings.ToUpper(strings.TrimSpace(key)) + "\x00" + fingerprint))
	return hex.EncodeToString(sum[:16])
}

func (s *stateStore) keepAnswer(productID, key, fingerprint string, answer keptAnswer) {
	name := stateName(productID, key, fingerprint)
	s.mu.Lock()
	s.answers[name] = answer
	s.mu.Unlock()
	if s.dir != "" {
		if text, err := json.Marshal(answer); err == nil {
			s.write("answer-"+name+".json", text)
		}
	}
}

func (s *stateStore) answer(productID, key, fingerprint string) (keptAnswer, bool) {
	name := stateName(productID, key, fingerprint)
	s.mu.Lock()
	answer, ok := s.answers[name]
	s.mu.Unlock()
	if ok || s.dir == "" {
		return answer, ok
	}
	text, err := os.ReadFile(filepath.Join(s.dir, "answer-"+name+".json"))
	if err != nil || json.Unmarshal(text, &answer) != nil {
		return keptAnswer{}, false
	}
	return answer, true
}

func (s *stateStore) keepLicenseFile(productID, key, fingerprint, text string) {
	name := stateName(productID, key, fingerprint)
	s.mu.Lock()
	s.files[name] = text
	s.mu.Unlock()
	if s.dir != "" {
		s.write("license-"+name+".lic", []byte(text))
	}
}

func (s *stateStore) licenseFile(productID, key, fingerprint string) (string, bool) {
	name := stateName(productID, key, fingerprint)
	s.mu.Lock()
	text, ok := s.files[name]
	s.mu.Unlock()
	if ok || s.dir == "" {
		return text, ok
	}
	bytes, err := os.ReadFile(filepath.Join(s.dir, "license-"+name+".lic"))
	return string(bytes), err == nil
}

// write replaces a file at once (a temporary file renamed), readable by this user only.
func (s *stateStore) write(name string, content []byte) {
	temp, err := os.CreateTemp(s.dir, ".tmp-"+name+"-*")
	if err != nil {
		return
	}
	_, err = temp.Write(content)
	if closeErr := temp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(temp.Name(), filepath.Join(s.dir, name))
	}
	if err != nil {
		os.Remove(temp.Name())
	}
}
