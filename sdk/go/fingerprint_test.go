package depot

import (
	"context"
	"errors"
	"os"
	"regexp"
	"runtime"
	"testing"
)

func TestMachineFingerprintTestVector(t *testing.T) {
	got, err := MachineFingerprint(context.Background(), "1", &FingerprintOptions{MachineID: " 0123456789abcdef0123456789abcdef\n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "bee1603142b8ed5996fe832fa4faa1d37b91f33a63af6e45c18f9fbee1adaf78"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	other, _ := MachineFingerprint(context.Background(), "2", &FingerprintOptions{MachineID: "0123456789abcdef0123456789abcdef"})
	if other == got {
		t.Fatal("two products see the same fingerprint")
	}
}

func TestMachineFingerprintOfThisMachine(t *testing.T) {
	got, err := MachineFingerprint(context.Background(), "1", nil)
	if runtime.GOOS == "linux" {
		_, etc := os.Stat("/etc/machine-id")
		_, dbus := os.Stat("/var/lib/dbus/machine-id")
		if etc != nil && dbus != nil {
			if !errors.Is(err, ErrNoMachineID) {
				t.Fatalf("no machine id here, got %q, %v", got, err)
			}
			t.Skip("this machine has no machine id")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(got) {
		t.Fatalf("not 64 hex characters: %q", got)
	}
	again, _ := MachineFingerprint(context.Background(), "1", nil)
	if again != got {
		t.Fatal("not stable")
	}
}
