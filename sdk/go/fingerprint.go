package depot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
)

// ErrNoMachineID: MachineFingerprint found no machine id on this system. Pass
// FingerprintOptions.MachineID (e.g. a random id the app stores on its first start) instead.
var ErrNoMachineID = errors.New("depot: no machine id found on this system (pass FingerprintOptions.MachineID)")

// FingerprintOptions are MachineFingerprint's optional settings.
type FingerprintOptions struct {
	// MachineID replaces the system's machine id (your own, e.g. a random id stored on first start).
	MachineID string
}

// MachineFingerprint is a stable, privacy-preserving fingerprint of this machine for the product:
// lower-case hex SHA-256 of "depot:" + productID + ":" + the machine id, trimmed. The machine id is
// Windows' MachineGuid (HKLM\SOFTWARE\Microsoft\Cryptography), macOS' IOPlatformUUID (ioreg -rd1
// -c IOPlatformExpertDevice), Linux's /etc/machine-id, then /var/lib/dbus/machine-id. Hashing with
// the product id means two vendors never see the same value, and it reveals nothing about the
// machine. It changes when the OS is reinstalled, a VM image is cloned with its id regenerated, or
// (Windows) sysprep runs; containers built from one image may share an id. No id: ErrNoMachineID.
// The context bounds the command it runs on Windows and macOS.
func MachineFingerprint(ctx context.Context, productID string, opts *FingerprintOptions) (string, error) {
	id := ""
	if opts != nil {
		id = strings.TrimSpace(opts.MachineID)
	}
	if id == "" {
		var err error
		if id, err = machineID(ctx); err != nil {
			return "", err
		}
	}
	sum := sha256.Sum256([]byte("depot:" + productID + ":" + id))
	return hex.EncodeToString(sum[:]), nil
}

var (
	machineGUID  = regexp.MustCompile(`(?m)^\s*MachineGuid\s+REG_SZ\s+(\S+)\s*$`)
	platformUUID = regexp.MustCompile(`"IOPlatformUUID"\s*=\s*"([^"]+)"`)
	linuxIDFiles = []string{"/etc/machine-id", "/var/lib/dbus/machine-id"}
)

func machineID(ctx context.Context) (string, error) {
	switch runtime.GOOS {
	case "windows":
		// /reg:64 reads the 64-bit view from a 32-bit process (WOW64 would hide MachineGuid).
		for _, view := range [][]string{{"/reg:64"}, nil} {
			args := append([]string{"query", `HKLM\SOFTWARE\Microsoft\Cryptography`, "/v", "MachineGuid"}, view...)
			if id := fromCommand(ctx, machineGUID, "reg", args...); id != "" {
				return id, nil
			}
		}
	case "darwin":
		if id := fromCommand(ctx, platformUUID, "ioreg", "-rd1", "-c", "IOPlatformExpertDevice"); id != "" {
			return id, nil
		}
	default:
		for _, path := range linuxIDFiles {
			if text, err := os.ReadFile(path); err == nil {
				if id := strings.TrimSpace(string(text)); id != "" {
					return id, nil
				}
			}
		}
	}
	return "", ErrNoMachineID
}

func fromCommand(ctx context.Context, pattern *regexp.Regexp, name string, args ...string) string {
	output, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return ""
	}
	if match := pattern.FindSubmatch(output); match != nil {
		return strings.TrimSpace(string(match[1]))
	}
	return ""
}
